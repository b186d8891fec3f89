"""Faces that serve a Memory: MCP (stdio, HTTP)."""
