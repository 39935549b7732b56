"""Tests of the hosted runtime (workbench host): HTTP, MCP, security, crashes."""
