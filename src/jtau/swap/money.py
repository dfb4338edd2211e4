"""Money: exact conversion with Decimal, never float.

`Decimal(repr(v))` keeps the decimal a JSON number was written with (`float(v) * 100` is not
an integer for hundreds of retail prices).  A result that is not whole is an error: the
exchange rate was chosen so that every source amount converts exactly.
"""

from __future__ import annotations

import ast
from decimal import Decimal, InvalidOperation

from jtau.util.limits import MAX_AMOUNT_DIGITS
from jtau.util.listing import clip


class MoneyError(ValueError):
    pass


def to_decimal(value) -> Decimal:
    """The exact amount of a number or a text ("$1,014.80"); a value that is no amount, or one
    of more than MAX_AMOUNT_DIGITS digits before the point, is a MoneyError."""
    if isinstance(value, bool):
        raise MoneyError(f"{_shown(value)} is not an amount")
    if isinstance(value, int):
        amount = Decimal(value) if abs(value) < 10 ** MAX_AMOUNT_DIGITS else None
    elif isinstance(value, float):
        amount = Decimal(repr(value))
    elif isinstance(value, str):
        try:
            amount = Decimal(value.replace(",", "").lstrip("$").strip())
        except InvalidOperation:
            raise MoneyError(f"{_shown(value)} is not an amount") from None
    elif isinstance(value, Decimal):
        amount = value
    else:
        raise MoneyError(f"{_shown(value)} is not an amount")
    if amount is None or not amount.is_finite() or abs(amount) >= 10 ** MAX_AMOUNT_DIGITS:
        raise MoneyError(f"{_shown(value)} is not an amount jtau converts (at most {MAX_AMOUNT_DIGITS} digits "
                         "before the point)")
    return amount


def _shown(value) -> str:
    """A value in a message: at most 60 characters of it."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10 ** 60:
        return "a number of more than 60 digits"
    return clip(repr(value), 60)


def convert_amount(value, rate: Decimal) -> int:
    """`value` in source currency -> whole yen, exactly."""
    result = to_decimal(value) * rate
    if result != result.to_integral_value():
        raise MoneyError(f"{_shown(value)} x {rate} = {result} is not a whole amount")
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
        scaled: list[ast.Constant] = []
        _mark(tree.body, scaled, expression)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # 5,000 digits, 1,000 levels
        raise MoneyError(f"{_shown(expression)} is not an arithmetic expression jtau converts") from None
    offset = len(expression) - len(expression.lstrip())
    out = expression
    for node in sorted(scaled, key=lambda n: n.col_offset, reverse=True):
        assert node.end_col_offset is not None  # ast.parse gives every node its end
        start, end = node.col_offset + offset, node.end_col_offset + offset
        out = out[:start] + str(convert_amount(out[start:end], rate)) + out[end:]
    if evaluate(out) != evaluate(expression) * rate:
        raise MoneyError(f"{_shown(expression)}: scaled expression {_shown(out)} is not {rate} times the source")
    return out


def _count(node: ast.AST) -> int | None:
    """The value of a count (a bare integer), None for any other node."""
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, int) else None


def _mark(node: ast.AST, scaled: list, expression: str) -> None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        scaled.append(node)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        _mark(node.operand, scaled, expression)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        _mark(node.left, scaled, expression)
        _mark(node.right, scaled, expression)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        left, right = _count(node.left), _count(node.right)
        if left is not None and not (right is not None and right < left):
            _mark(node.right, scaled, expression)
        elif right is not None:
            _mark(node.left, scaled, expression)
        else:
            raise MoneyError(f"{_shown(expression)}: a product of two amounts is not money")
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        _mark(node.left, scaled, expression)
    else:
        raise MoneyError(f"{_shown(expression)}: only + - * / on numbers can be converted")


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
        raise MoneyError(f"{_shown(expression)}: unsupported expression")

    try:
        return walk(ast.parse(expression.strip(), mode="eval").body)
    except (SyntaxError, ValueError, RecursionError, MemoryError, ArithmeticError):
        raise MoneyError(f"{_shown(expression)} is not an arithmetic expression jtau evaluates") from None
