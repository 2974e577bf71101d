"""Setting up clients: registering this install's MCP server in a coding agent's
configuration file, and the HTTP server's token that such an entry carries."""
