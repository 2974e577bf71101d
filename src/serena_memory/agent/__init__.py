"""What an agent is given and told: the MCP tools by name (``tools``) and the contexts and
modes that choose them (``contexts``, ``modes``); onboarding and the activation message
(``onboarding``, ``maintenance``, ``project_facts``, ``templates``); listings that fit a
budget (``listing``); the memory review (``review``, ``proposal_views``); how far to trust
a memory (``trust``), what it costs the listing (``usage``); read-only views of the
project's files (``exploration``).
"""
