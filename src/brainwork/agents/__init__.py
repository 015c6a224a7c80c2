"""Adapters through which coding agents reach brainwork: the MCP server
(:mod:`brainwork.agents.mcp_server`) and the editing of an agent's MCP
configuration (:mod:`brainwork.agents.claude_config`).

An adapter never keeps the store open: captures write their page without it
(:func:`brainwork.learn.capture.capture`) and everything else runs as a
brainwork command in the store's owner, or against the store opened for
that one call (:func:`brainwork.cli.served.call`). So any number of agent
sessions can run beside the workbench or ``brainwork serve``.
"""
