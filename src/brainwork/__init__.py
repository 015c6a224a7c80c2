"""brainwork: a curation workbench for an AI agent's work memory."""

__version__ = "0.1.0"
