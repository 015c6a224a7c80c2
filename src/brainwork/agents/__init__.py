"""Adapters through which coding agents reach brainwork: the MCP server
(:mod:`brainwork.agents.mcp_server`, added to Claude Code's configuration by
:mod:`brainwork.agents.claude_config`) and Claude Code's hooks
(:mod:`brainwork.agents.hooks`, :mod:`brainwork.agents.transcript`,
installed by :mod:`brainwork.agents.hook_install`).

An adapter never keeps the store open: captures write their page without it
(:func:`brainwork.learn.capture.capture`) and everything else runs as a
brainwork command in the store's owner, or against the store opened for
that one call (:func:`brainwork.cli.served.call`). So any number of agent
sessions can run beside the workbench or ``brainwork serve``.
"""
