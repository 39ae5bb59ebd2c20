"""The one wiring point: the discord.py client (``RingsideBot``), the store, the worker processes
that draw the pictures and do the heavy work, the cogs, and the registered games (``kits.KITS``).

``bot/`` holds the services (pure of Discord and of pictures); ``cogs/`` the Discord side of each
command; ``app/`` puts them together. ``python -m bot`` runs ``app.main``."""
