"""Faces that serve a Memory: MCP (stdio, HTTP)."""

# Where `ebbtide serve --transport http` answers MCP; `ebbtide config --url` completes a bare
# host with it.
MCP_PATH = "/mcp"
