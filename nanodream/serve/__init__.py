"""`nanodream serve`: the memory's history as a local page (the `serve` extra: Starlette, uvicorn, Jinja2)."""
