"""Read-only analyses over the store: fuzzy page search, quality findings,
clustering and effect figures. Nothing here writes the vault."""
