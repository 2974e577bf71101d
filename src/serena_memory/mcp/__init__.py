"""The MCP server: ``server`` builds it on the official SDK from the tool modules
(``tools_memories``, ``tools_search``, ``tools_history``, ``tools_onboarding``,
``tools_exploration``, each tool declared through ``tool_declaration``), with ``prompts``
and ``resources``. ``state`` is what one server knows between calls, ``auth`` the HTTP
server's gate, ``message_checks`` the check of every incoming message, and ``errors`` the
failures as the agent reads them.
"""
