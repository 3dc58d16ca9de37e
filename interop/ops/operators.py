"""Python operators, mapped onto table entries (the NumPy mixin idea, torch's func choices).

Each row: dunder -> (operation, the callable handlers receive as ``func``,
operands swapped).  The ``func`` follows torch 2.13 (PROTOCOLS.md A13):
``t + 1`` passes ``Tensor.add``, ``1 - t`` passes ``Tensor.__rsub__``,
``t < 1`` passes ``Tensor.lt``, ``t += 1`` passes ``Tensor.add_``.  None
means the dunder itself is passed.
"""

from __future__ import annotations

import operator as _op

# Shortcuts for operands of one backend and one dtype (see dispatch.make_operator):
# dunder -> (raw function, dtype kinds where NumPy's result equals torch's).
FAST = {
    "__add__": (_op.add, "biufc"), "__radd__": (_op.add, "biufc"),
    "__sub__": (_op.sub, "iufc"), "__rsub__": (_op.sub, "iufc"),
    "__mul__": (_op.mul, "biufc"), "__rmul__": (_op.mul, "biufc"),
    "__truediv__": (_op.truediv, "fc"), "__rtruediv__": (_op.truediv, "fc"),
    # integer // and % go to the table entry, which raises on division by zero as torch does
    "__floordiv__": (_op.floordiv, "f"), "__rfloordiv__": (_op.floordiv, "f"),
    "__mod__": (_op.mod, "f"), "__rmod__": (_op.mod, "f"),
    "__pow__": (_op.pow, "fc"), "__rpow__": (_op.pow, "fc"),
    "__eq__": (_op.eq, "biufc"), "__ne__": (_op.ne, "biufc"),
    "__lt__": (_op.lt, "biuf"), "__le__": (_op.le, "biuf"),
    "__gt__": (_op.gt, "biuf"), "__ge__": (_op.ge, "biuf"),
    "__and__": (_op.and_, "biu"), "__or__": (_op.or_, "biu"), "__xor__": (_op.xor, "biu"),
}

BINARY = {
    "__add__": ("add", "add", False), "__radd__": ("add", "add", False),
    "__sub__": ("sub", "sub", False), "__rsub__": ("sub", None, True),
    "__mul__": ("mul", "mul", False), "__rmul__": ("mul", "mul", False),
    "__truediv__": ("div", "div", False), "__rtruediv__": ("div", None, True),
    "__floordiv__": ("floor_divide", None, False), "__rfloordiv__": ("floor_divide", None, True),
    "__mod__": ("remainder", "remainder", False), "__rmod__": ("remainder", None, True),
    "__pow__": ("pow", None, False), "__rpow__": ("pow", None, True),
    "__matmul__": ("matmul", "matmul", False), "__rmatmul__": ("matmul", None, True),
    "__and__": ("bitwise_and", None, False), "__rand__": ("bitwise_and", None, True),
    "__or__": ("bitwise_or", None, False), "__ror__": ("bitwise_or", None, True),
    "__xor__": ("bitwise_xor", None, False), "__rxor__": ("bitwise_xor", None, True),
    "__lshift__": ("bitwise_left_shift", None, False),
    "__rlshift__": ("bitwise_left_shift", None, True),
    "__rshift__": ("bitwise_right_shift", None, False),
    "__rrshift__": ("bitwise_right_shift", None, True),
    "__eq__": ("eq", None, False), "__ne__": ("ne", None, False),
    "__lt__": ("lt", "lt", False), "__le__": ("le", "le", False),
    "__gt__": ("gt", "gt", False), "__ge__": ("ge", "ge", False),
}

INPLACE = {
    "__iadd__": "add_", "__isub__": "sub_", "__imul__": "mul_", "__itruediv__": "div_",
    "__ifloordiv__": "floor_divide_", "__imod__": "remainder_", "__ipow__": "pow_",
    "__iand__": "bitwise_and_", "__ior__": "bitwise_or_", "__ixor__": "bitwise_xor_",
    "__ilshift__": "bitwise_left_shift_", "__irshift__": "bitwise_right_shift_",
}

UNARY = {"__neg__": ("neg", "neg"), "__pos__": ("positive", None), "__abs__": ("abs", "abs"),
         "__invert__": ("bitwise_not", None)}
