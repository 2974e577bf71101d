"""The pages and endpoints. Views stay thin: they read the request and call a service."""
