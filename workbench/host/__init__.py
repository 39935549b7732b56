"""The hosted runtime: private campaigns played over HTTP and MCP without the seed."""
