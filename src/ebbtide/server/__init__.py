"""Faces that serve a Memory: MCP (stdio, HTTP)."""

# Where `ebbtide serve --transport http` answers MCP; `ebbtide config --url` completes a bare
# host with it.
MCP_PATH = "/mcp"
# The variable `ebbtide serve --transport http` reads its bearer token from; the entries
# `ebbtide config --url` prints have clients read theirs from the same name.
TOKEN_VARIABLE = "EBBTIDE_HTTP_TOKEN"
