"""Money: ``Decimal`` amounts, never ``float``; rounded half-even once, at the end."""

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal

CENT = Decimal("0.01")


@dataclass(frozen=True)
class Money:
    amount: Decimal
    currency: str

    def _same_currency(self, other: "Money") -> None:
        if other.currency != self.currency:
            raise ValueError(f"cannot combine {self.currency} with {other.currency}")

    def __add__(self, other: "Money") -> "Money":
        self._same_currency(other)
        return Money(self.amount + other.amount, self.currency)

    def __sub__(self, other: "Money") -> "Money":
        self._same_currency(other)
        return Money(self.amount - other.amount, self.currency)

    def __mul__(self, factor: Decimal | int) -> "Money":
        return Money(self.amount * factor, self.currency)

    def __le__(self, other: "Money") -> bool:
        self._same_currency(other)
        return self.amount <= other.amount

    def rounded(self) -> "Money":
        return Money(self.amount.quantize(CENT, rounding=ROUND_HALF_EVEN), self.currency)

    def minor_units(self) -> int:
        """The amount on the wire to Stripe: cents (every currency sold has two decimals)."""
        return int(self.rounded().amount / CENT)

    @classmethod
    def from_minor_units(cls, units: int, currency: str) -> "Money":
        return cls(Decimal(units) * CENT, currency.upper())
