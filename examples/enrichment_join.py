"""Stream enrichment: orders joined with the latest customer record, a KeyedCoProcessFunction.

Both streams are keyed by customer id; the customer side keeps the newest name and tier in
keyed state, the order side is enriched with it, and an order that arrives before its customer
waits in state until the customer does (or until event time passes it by a minute).
Run: python examples/enrichment_join.py
"""
from kindling.common import Types, WatermarkStrategy
from kindling.common.watermark_strategy import TimestampAssigner
from kindling.datastream import KeyedCoProcessFunction, StreamExecutionEnvironment
from kindling.datastream.state import ListStateDescriptor, ValueStateDescriptor

ONE_MINUTE = 60_000

# (customer id, order id, amount, event time in ms)
ORDERS = [(1, "o-1", 25.0, 1_000), (2, "o-2", 310.0, 2_000), (3, "o-3", 12.5, 3_000),
          (1, "o-4", 99.0, 70_000), (4, "o-5", 5.0, 80_000)]
# (customer id, name, tier, event time in ms)
CUSTOMERS = [(1, "Ada", "gold", 0), (2, "Grace", "silver", 500), (3, "Edsger", "bronze", 4_000)]


class ByTime(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return value[-1]


class Enrich(KeyedCoProcessFunction):
    def open(self, runtime_context):
        self.customer = runtime_context.get_state(ValueStateDescriptor("customer", Types.PICKLED_BYTE_ARRAY()))
        self.waiting = runtime_context.get_list_state(ListStateDescriptor("waiting", Types.PICKLED_BYTE_ARRAY()))

    def process_element1(self, order, ctx):
        customer = self.customer.value()
        if customer is None:
            self.waiting.add(order)
            ctx.timer_service().register_event_time_timer(order[3] + ONE_MINUTE)
        else:
            yield self._enriched(order, customer)

    def process_element2(self, customer, ctx):
        self.customer.update(customer)
        for order in self.waiting.get():
            yield self._enriched(order, customer)
        self.waiting.clear()

    def on_timer(self, timestamp, ctx):
        for order in self.waiting.get():
            if order[3] + ONE_MINUTE <= timestamp:
                yield f"order {order[1]} of customer {order[0]}: no customer record"
        self.waiting.update([o for o in self.waiting.get() if o[3] + ONE_MINUTE > timestamp])

    @staticmethod
    def _enriched(order, customer):
        return f"order {order[1]}: {order[2]:.2f} by {customer[1]} ({customer[2]})"


def main():
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    by_time = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(ByTime())
    orders = env.from_collection(ORDERS).assign_timestamps_and_watermarks(by_time)
    customers = env.from_collection(CUSTOMERS).assign_timestamps_and_watermarks(by_time)
    orders.connect(customers).key_by(lambda o: o[0], lambda c: c[0]).process(Enrich(), Types.STRING()).print()
    env.execute("enrichment_join")


if __name__ == "__main__":
    main()
