"""Operations that change the vault: rename, merge, split, fixes, the journal and the undo log."""
