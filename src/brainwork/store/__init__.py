"""The Kùzu side: schema, connection handling and every query.

Only :mod:`brainwork.store.db` imports ``kuzu``; a swap to a Kùzu fork (e.g.
LadybugDB) is a change there alone. The store is derived data: it can be
rebuilt from the vault, except for its own history (undo log, dismissals,
approvals, the embeddings cache).
"""

from brainwork.store.db import Store

__all__ = ["Store"]
