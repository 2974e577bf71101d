"""The shop's logic, one module per concept; views and tasks only call these."""
