"""The dashboard's tests: a package, so that their conftest.py is loaded as a module of
its own and does not take the name `conftest` from tests/conftest.py, which the tests
import helpers from."""
