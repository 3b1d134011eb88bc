"""Fraud detection with keyed state and timers (Flink's fraud-detection walkthrough).

An account is flagged when a small transaction (< 1.00) is followed, within one minute of
event time, by a large one (> 500.00). Run: python examples/fraud_detection.py
"""
from kindling.common import Duration, Types, WatermarkStrategy
from kindling.datastream import KeyedProcessFunction, StreamExecutionEnvironment
from kindling.datastream.state import ValueStateDescriptor

SMALL_AMOUNT = 1.00
LARGE_AMOUNT = 500.00
ONE_MINUTE = 60 * 1000

# (account, amount, event time in ms)
TRANSACTIONS = [
    (1, 188.23, 0), (2, 0.50, 1_000), (3, 374.79, 2_000), (2, 712.00, 30_000),
    (4, 0.10, 40_000), (1, 0.90, 50_000), (1, 650.00, 100_000), (5, 0.35, 120_000),
    (5, 1.50, 125_000), (5, 800.00, 130_000), (4, 900.00, 200_000),
]


class FraudDetector(KeyedProcessFunction):
    """Flags a large transaction that follows a small one within a minute."""

    def open(self, runtime_context):
        self.flag = runtime_context.get_state(ValueStateDescriptor("flag", Types.BOOLEAN()))
        self.timer = runtime_context.get_state(ValueStateDescriptor("timer", Types.LONG()))

    def process_element(self, transaction, ctx):
        account, amount, _ = transaction
        if self.flag.value():
            if amount > LARGE_AMOUNT:
                yield f"ALERT account {account}: {amount:.2f} right after a small transaction"
            self._clean_up(ctx)
        if amount < SMALL_AMOUNT:
            self.flag.update(True)
            expiry = ctx.timestamp() + ONE_MINUTE
            ctx.timer_service().register_event_time_timer(expiry)
            self.timer.update(expiry)

    def on_timer(self, timestamp, ctx):
        self.flag.clear()
        self.timer.clear()

    def _clean_up(self, ctx):
        if self.timer.value() is not None:
            ctx.timer_service().delete_event_time_timer(self.timer.value())
        self.flag.clear()
        self.timer.clear()


def main() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    strategy = (WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_seconds(5))
                .with_timestamp_assigner(lambda t, _: t[2]))
    transactions = env.from_collection(TRANSACTIONS).assign_timestamps_and_watermarks(strategy)
    alerts = transactions.key_by(lambda t: t[0]).process(FraudDetector()).name("fraud-detector")
    alerts.print()
    env.execute("fraud detection")


if __name__ == "__main__":
    main()
