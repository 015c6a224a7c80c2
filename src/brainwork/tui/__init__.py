"""The Textual workbench. The only package that imports Textual."""
