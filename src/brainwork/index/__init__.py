"""Vault -> store synchronisation: change detection, parsing, link
resolution and one all-or-nothing write per sync."""
