"""Money: exact conversion with Decimal, never float.

`Decimal(repr(v))` keeps the decimal a JSON number was written with (`float(v) * 100` is not
an integer for hundreds of retail prices).  A result that is not whole is an error: the
exchange rate was chosen so that every source amount converts exactly.
"""

from __future__ import annotations

import ast
from decimal import Decimal, InvalidOperation


class MoneyError(ValueError):
    pass


def to_decimal(value) -> Decimal:
    if isinstance(value, bool):
        raise MoneyError(f"{value!r} is not an amount")
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, str):
        try:
            return Decimal(value.replace(",", "").lstrip("$").strip())
        except InvalidOperation:
            raise MoneyError(f"{value!r} is not an amount") from None
    if isinstance(value, Decimal):
        return value
    raise MoneyError(f"{value!r} is not an amount")


def convert_amount(value, rate: Decimal) -> int:
    """`value` in source currency -> whole yen, exactly."""
    result = to_decimal(value) * rate
    if result != result.to_integral_value():
        raise MoneyError(f"{value!r} x {rate} = {result} is not a whole amount")
    return int(result)


def format_yen(amount: int, suffix: str) -> str:
    """12300 -> `12,300円` (half-width digits, comma grouping, JA_STYLE.md)."""
    return f"{amount:,}{suffix}"


YEN_SIGN = "¥"


def yen_in(language: str, amount, suffix: str) -> str:
    """A yen amount as text of `language` writes it: `12,300円` in Japanese, `¥12,300` in English
    (jtau.arms: J-tau's money in an English-text arm); a negative amount keeps its sign first."""
    if language == "ja":
        return format_yen(amount, suffix)
    sign, amount = ("-", -amount) if amount < 0 else ("", amount)
    return f"{sign}{YEN_SIGN}{amount:,}"


# --- arithmetic expressions (the `calculate` tool) -------------------------------------

_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div)


def convert_expression(expression: str, rate: Decimal) -> str:
    """Scale a money expression so that its value is `rate` times the source value.

    Sums and differences scale every term; in a product one factor is a count (a bare
    integer: `2 * (350 - 122)`) and stays, the other scales; a divisor stays.  Only the
    literals that scale are rewritten, so the text keeps its spacing and parentheses.
    """
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError:
        raise MoneyError(f"{expression!r} is not an arithmetic expression") from None
    scaled: list[ast.Constant] = []
    _mark(tree.body, scaled, expression)
    offset = len(expression) - len(expression.lstrip())
    out = expression
    for node in sorted(scaled, key=lambda n: n.col_offset, reverse=True):
        start, end = node.col_offset + offset, node.end_col_offset + offset
        out = out[:start] + str(convert_amount(out[start:end], rate)) + out[end:]
    if evaluate(out) != evaluate(expression) * rate:
        raise MoneyError(f"{expression!r}: scaled expression {out!r} is not {rate} times the source")
    return out


def _is_count(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, int)


def _mark(node: ast.AST, scaled: list, expression: str) -> None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        scaled.append(node)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        _mark(node.operand, scaled, expression)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        _mark(node.left, scaled, expression)
        _mark(node.right, scaled, expression)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        if _is_count(node.left) and not (_is_count(node.right) and node.right.value < node.left.value):
            _mark(node.right, scaled, expression)
        elif _is_count(node.right):
            _mark(node.left, scaled, expression)
        else:
            raise MoneyError(f"{expression!r}: a product of two amounts is not money")
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        _mark(node.left, scaled, expression)
    else:
        raise MoneyError(f"{expression!r}: only + - * / on numbers can be converted")


def evaluate(expression: str) -> Decimal:
    """Exact value of an arithmetic expression (Decimal; no eval)."""

    def walk(node: ast.AST) -> Decimal:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return to_decimal(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -walk(node.operand)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd):
            return walk(node.operand)
        if isinstance(node, ast.BinOp) and isinstance(node.op, _OPS):
            left, right = walk(node.left), walk(node.right)
            if isinstance(node.op, ast.Add):
                return left + right
            if isinstance(node.op, ast.Sub):
                return left - right
            if isinstance(node.op, ast.Mult):
                return left * right
            return left / right
        raise MoneyError(f"{expression!r}: unsupported expression")

    try:
        return walk(ast.parse(expression.strip(), mode="eval").body)
    except SyntaxError:
        raise MoneyError(f"{expression!r} is not an arithmetic expression") from None
