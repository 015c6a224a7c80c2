"""The Markdown side: reading pages (frontmatter, wikilinks), resolving link
targets, and writing files safely (atomic writes, span edits, path checks).

Canonical: the vault's bytes are the truth; everything in the store is
derived from them. Nothing in this package imports the store or Textual.
"""
