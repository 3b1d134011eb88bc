"""``pyflink.table.udf``: Python user-defined functions of the Table API: scalar (``udf``), table
(``udtf``) and aggregate (``udaf``) functions, general (a row at a time) or pandas (Series).

They run in Kindling's Python pass of the job (the same Arrow-batched ``mapInArrow`` that runs
DataStream functions), aggregate functions in the grouping operator's keyed state.

Example::

    @udf(result_type=DataTypes.STRING())
    def upper(s):
        return s.upper()

    @udtf(result_types=[DataTypes.STRING()])
    def split(line):
        for word in line.split():
            yield word

    table.join_lateral(split(col('line')).alias('word')).select(upper(col('word')))
"""
from __future__ import annotations

import abc
import inspect
from typing import Any, Callable, Dict, Iterable, List, Optional, Union

from kindling.common.unsupported import UnsupportedError, unsupported
from kindling.table.expressions import Expression, _expr, aggregate_node, node
from kindling.table.types import DataType, as_data_type

__all__ = ["AggregateFunction", "AsyncScalarFunction", "FunctionContext", "ScalarFunction", "TableAggregateFunction", "TableFunction",
           "UserDefinedFunction", "udaf", "udf", "udtaf", "udtf"]


class FunctionContext:
    """What a function's ``open`` gets: the job parameters (``pipeline.global-job-parameters``) and,
    for a function a projection or filter calls, its task's subtask and parallelism.

    Example::

        def open(self, function_context):
            self.suffix = function_context.get_job_parameter("suffix", "")
    """

    def __init__(self, job_parameters: Optional[Dict[str, str]] = None, task: Any = None):
        self._job_parameters = job_parameters or {}
        self._task = task

    def get_job_parameter(self, key: str, default_value: str) -> str:
        if self._task is not None:
            return self._task.get_job_parameter(key, default_value)
        return self._job_parameters.get(key, default_value)

    @unsupported("Table functions have no metric group in Kindling yet")
    def get_metric_group(self): ...

    def get_index_of_this_subtask(self) -> int:
        return self._task_context().get_index_of_this_subtask()

    def get_number_of_parallel_subtasks(self) -> int:
        return self._task_context().get_number_of_parallel_subtasks()

    def get_max_number_of_parallel_subtasks(self) -> int:
        return self._task_context().get_max_number_of_parallel_subtasks()

    def get_attempt_number(self) -> int:
        return self._task_context().get_attempt_number()

    def get_task_name(self) -> str:
        return self._task_context().get_task_name()

    def get_task_name_with_subtasks(self) -> str:
        return self._task_context().get_task_name_with_subtasks()

    def _task_context(self) -> Any:
        if self._task is None:
            raise UnsupportedError("This function was opened outside a projection or filter (in an aggregate's "
                                   "argument, a join condition or a table function's argument), where Kindling "
                                   "does not give it its task's context yet: only get_job_parameter works there")
        return self._task


class UserDefinedFunction(abc.ABC):
    """The base of user-defined functions: ``open`` before the first call, ``close`` at the end."""

    def open(self, function_context: FunctionContext) -> None:
        pass

    def close(self) -> None:
        pass

    def is_deterministic(self) -> bool:
        return True


class ScalarFunction(UserDefinedFunction):
    """A function of a row's values to one value: implement ``eval(*args)``."""

    @abc.abstractmethod
    def eval(self, *args):
        pass


class AsyncScalarFunction(UserDefinedFunction):
    """A scalar function whose ``eval`` is a coroutine, for lookups in external systems: the calls
    of a batch of rows run concurrently (``table.exec.async-scalar.max-concurrent-operations`` at a
    time, each with ``...timeout`` and ``...retry-strategy``); wrap it with ``udf`` (an ``async def``
    given to ``udf`` is one too).

    Example::

        class Lookup(AsyncScalarFunction):
            async def eval(self, key):
                await asyncio.sleep(0.1)
                return f"value_for_{key}"

        lookup = udf(Lookup(), result_type=DataTypes.STRING())
    """

    @abc.abstractmethod
    async def eval(self, *args):
        """The value for the arguments, awaited."""


class TableFunction(UserDefinedFunction):
    """A function of a row's values to any number of rows: implement ``eval(*args)`` yielding them."""

    @abc.abstractmethod
    def eval(self, *args):
        pass


class _ImperativeAggregateFunction(UserDefinedFunction):
    """What aggregate and table aggregate functions share: ``create_accumulator()``,
    ``accumulate(acc, *args)``, ``retract(acc, *args)`` for an updating input, and optionally the
    result's type (``get_result_type``)."""

    @abc.abstractmethod
    def create_accumulator(self):
        pass

    @abc.abstractmethod
    def accumulate(self, accumulator, *args):
        pass

    def retract(self, accumulator, *args):
        raise ValueError(f"The aggregate function {type(self).__name__} has no retract method, which an updating "
                         "input (the result of another aggregation) needs")

    def merge(self, accumulator, accumulators):
        raise NotImplementedError

    def get_result_type(self) -> Union[DataType, str, None]:
        """The result's type, when the function declares it (udaf/udtaf take it as their result_type)."""
        return None

    def get_accumulator_type(self) -> Union[DataType, str, None]:
        """The accumulator's type, when the function declares it (Kindling keeps accumulators pickled)."""
        return None


class AggregateFunction(_ImperativeAggregateFunction):
    """An aggregate of a group's rows: ``create_accumulator()``, ``accumulate(acc, *args)``,
    ``get_value(acc)``; ``retract(acc, *args)`` for an updating input."""

    @abc.abstractmethod
    def get_value(self, accumulator):
        pass


class TableAggregateFunction(_ImperativeAggregateFunction):
    """An aggregate of a group's rows into rows: ``create_accumulator()``, ``accumulate(acc, *args)``,
    ``emit_value(acc)`` yielding the rows (Rows, tuples or values); for ``flat_aggregate``."""

    @abc.abstractmethod
    def emit_value(self, accumulator):
        pass


class _Function:
    """A user function as the wrappers call it: a plain callable or a function object, opened once
    per Python worker before the first call."""

    def __init__(self, f: Any, method: str, func_type: str, name: Optional[str]):
        if func_type not in ("general", "pandas"):
            raise ValueError(f"func_type must be 'general' or 'pandas', got {func_type!r}")
        self._f = f
        self._method = method
        self._func_type = func_type
        self._name = name or getattr(f, "__name__", type(f).__name__)
        self._call: Optional[Callable] = None

    _asynchronous = False  # an async scalar function: its calls return coroutines

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k not in ("_call", "_async_runner")} | {"_call": None}

    def _callable(self) -> Callable:
        """The function to call, opened first (without its task's context when no operator opened it)."""
        if self._call is None:
            self._open(None)
        return self._call

    def _open(self, runtime_context: Any) -> None:
        """Opens the function, once, with the task's ``runtime_context`` (job parameters, subtask) if given."""
        if self._call is not None:
            return
        f = self._f
        if isinstance(f, UserDefinedFunction):
            f.open(FunctionContext(task=runtime_context))
            f = getattr(f, self._method)
        self._call = f

    def _close(self) -> None:
        """Closes an opened function (its async calls still in flight are cancelled)."""
        if self._call is None:
            return
        self._call = None
        started = self.__dict__.pop("_async_runner", None)  # (its options, the runner): async_functions.py
        if started is not None:
            started[1].close()
        if isinstance(self._f, UserDefinedFunction):
            self._f.close()


class UserDefinedScalarFunctionWrapper(_Function):
    """What ``udf`` makes: called with expressions it is an expression of the function's value."""

    def __init__(self, f, result_type, func_type: str = "general", name: Optional[str] = None):
        super().__init__(f, "eval", func_type, name)
        self._result_type = as_data_type(result_type, "result_type")

    def __call__(self, *args) -> Expression:
        arguments = tuple(_expr(a) for a in args)
        return node("udf", arguments, (self,), f"{self._name}({', '.join(a._text for a in arguments)})")


class UserDefinedAsyncScalarFunctionWrapper(UserDefinedScalarFunctionWrapper):
    """What ``udf`` makes of an AsyncScalarFunction or an ``async def``: its calls are awaited,
    many at once (kindling/runtime/table/async_functions.py)."""

    _asynchronous = True

    def __init__(self, f, result_type, func_type: str = "general", name: Optional[str] = None):
        if func_type == "pandas":
            raise ValueError("Async scalar functions do not support pandas func_type. "
                             "Please use func_type='general' (default) for async functions.")
        super().__init__(f, result_type, func_type, name)


class TableFunctionCall(Expression):
    """A call of a table function (``split(col('line'))``), for join_lateral; ``alias`` names its
    result columns."""

    @property
    def _function(self) -> "UserDefinedTableFunctionWrapper":
        return self._payload[0]

    @property
    def _names(self) -> Optional[List[str]]:
        return self._payload[1]

    def alias(self, name: str, *extra_names: str) -> "TableFunctionCall":
        names = [name, *extra_names]
        if len(names) != len(self._function._result_types):
            raise ValueError(f"alias: {len(names)} names {names} for the {len(self._function._result_types)} "
                             f"result columns of {self._function._name}")
        return _table_function_call(self._function, self._operands, names)


def _table_function_call(function: "UserDefinedTableFunctionWrapper", arguments: tuple,
                         names: Optional[List[str]] = None) -> TableFunctionCall:
    return node("udtf", arguments, (function, names), f"{function._name}({', '.join(a._text for a in arguments)})",
                cls=TableFunctionCall)


class UserDefinedTableFunctionWrapper(_Function):
    """What ``udtf`` makes: for ``flat_map`` or, called with expressions, ``join_lateral``."""

    def __init__(self, f, result_types, name: Optional[str] = None):
        super().__init__(f, "eval", "general", name)
        types = result_types if isinstance(result_types, (list, tuple)) else [result_types]
        self._result_types = [as_data_type(t, "result_types") for t in types]
        self._aliases: Optional[List[str]] = None

    def alias(self, *alias_names: str) -> "UserDefinedTableFunctionWrapper":
        """The names of the result's columns when the function is given uncalled (``join_lateral(split.alias('w'))``)."""
        self._aliases = list(alias_names)
        return self

    def __call__(self, *args) -> TableFunctionCall:
        return _table_function_call(self, tuple(_expr(a) for a in args))

    def _produce(self, args: List[Any]) -> Iterable[List[Any]]:
        from kindling.common.types import Row

        produced = self._callable()(*args)
        for value in produced if produced is not None else ():
            if isinstance(value, Row):
                yield list(value._values)
            elif isinstance(value, (tuple, list)):
                yield list(value)
            else:
                yield [value]


class UserDefinedAggregateFunctionWrapper(_Function):
    """What ``udaf`` (and ``udtaf``) make: called with expressions it is an aggregate for
    ``group_by().select()``; given to ``aggregate`` (``flat_aggregate``) it takes the whole row."""

    def __init__(self, f, result_type, func_type: str = "general", name: Optional[str] = None,
                 table_aggregate: bool = False):
        kind = TableAggregateFunction if table_aggregate else AggregateFunction
        if func_type == "general" and not isinstance(f, kind):
            raise TypeError(f"{'udtaf' if table_aggregate else 'udaf'} of func_type 'general' takes {'a' if table_aggregate else 'an'} {kind.__name__} "
                            f"object, got {f!r}" + ("" if table_aggregate else "; a plain function over pandas Series "
                                                    "is func_type='pandas'"))
        super().__init__(f, "emit_value" if table_aggregate else "get_value", func_type, name)
        self._result_type = as_data_type(result_type, "result_type")
        self._table_aggregate = table_aggregate
        self._aliases: Optional[List[str]] = None

    def alias(self, *alias_names: str) -> "UserDefinedAggregateFunctionWrapper":
        """The names of the result's columns in ``aggregate``/``flat_aggregate``."""
        self._aliases = list(alias_names)
        return self

    def _object(self) -> AggregateFunction:
        self._callable()  # opens it
        return self._f

    def __call__(self, *args) -> Expression:
        arguments = tuple(_expr(a) for a in args)
        return aggregate_node(self, arguments, text=f"{self._name}({', '.join(a._text for a in arguments)})")


def udf(f: Any = None, input_types=None, result_type: Union[DataType, str, None] = None, deterministic=None,
        name: Optional[str] = None, func_type: str = "general", udf_type=None):
    """A scalar function: ``udf(f, result_type=...)`` or ``@udf(result_type=...)``; ``func_type='pandas'``
    for a function of pandas Series; an AsyncScalarFunction or an ``async def`` is awaited."""
    if result_type is None:
        raise ValueError("udf needs a result_type, such as DataTypes.STRING()")
    if f is None:
        return lambda g: udf(g, result_type=result_type, name=name, func_type=udf_type or func_type)
    if isinstance(f, AsyncScalarFunction) or inspect.iscoroutinefunction(f):
        return UserDefinedAsyncScalarFunctionWrapper(f, result_type, udf_type or func_type, name)
    return UserDefinedScalarFunctionWrapper(f, result_type, udf_type or func_type, name)


def udtf(f: Any = None, input_types=None, result_types=None, deterministic=None, name: Optional[str] = None):
    """A table function: ``udtf(f, result_types=[...])`` or ``@udtf(result_types=[...])``."""
    if result_types is None:
        raise ValueError("udtf needs result_types, such as [DataTypes.STRING()]")
    if f is None:
        return lambda g: UserDefinedTableFunctionWrapper(g, result_types, name)
    return UserDefinedTableFunctionWrapper(f, result_types, name)


def udaf(f: Any = None, input_types=None, result_type: Union[DataType, str, None] = None, accumulator_type=None,
         deterministic=None, name: Optional[str] = None, func_type: str = "general"):
    """An aggregate function: ``udaf(MyAggregateFunction(), result_type=...)`` (or the function's
    ``get_result_type()``), or ``udaf(f, result_type=..., func_type='pandas')`` for a function of pandas Series."""
    return _aggregate_wrapper(f, result_type, func_type, name, False)


def udtaf(f: Any = None, input_types=None, result_type: Union[DataType, str, None] = None, accumulator_type=None,
          deterministic=None, name: Optional[str] = None, func_type: str = "general"):
    """A table aggregate function, for ``flat_aggregate``: ``udtaf(MyTableAggregateFunction(), result_type=...)``
    (or the function's ``get_result_type()``)."""
    if func_type != "general":
        raise ValueError("udtaf takes func_type 'general' (PyFlink has no pandas table aggregate functions)")
    return _aggregate_wrapper(f, result_type, func_type, name, True)


def _aggregate_wrapper(f: Any, result_type: Any, func_type: str, name: Optional[str], table_aggregate: bool):
    what = "udtaf" if table_aggregate else "udaf"
    if f is None:
        return lambda g: _aggregate_wrapper(g, result_type, func_type, name, table_aggregate)
    if result_type is None and isinstance(f, _ImperativeAggregateFunction):
        result_type = f.get_result_type()
    if result_type is None:
        raise ValueError(f"{what} needs a result_type (or the function's get_result_type()), such as "
                         "DataTypes.BIGINT()")
    return UserDefinedAggregateFunctionWrapper(f, result_type, func_type, name, table_aggregate)
