from decimal import Decimal

import pytest

from shop.services.money import Money


def test_rounding_is_half_even_and_only_at_the_end():
    third = Money(Decimal("10.00"), "EUR") * (Decimal(1) / 3)
    assert (third * 3).rounded() == Money(Decimal("10.00"), "EUR")
    assert Money(Decimal("0.125"), "EUR").rounded().amount == Decimal("0.12")


def test_currencies_never_mix():
    with pytest.raises(ValueError):
        Money(Decimal(1), "EUR") + Money(Decimal(1), "CHF")


def test_stripe_gets_cents():
    assert Money(Decimal("19.99"), "EUR").minor_units() == 1999
    assert Money.from_minor_units(1999, "eur") == Money(Decimal("19.99"), "EUR")
