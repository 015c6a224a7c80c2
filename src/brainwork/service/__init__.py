"""The service layer: who holds the store, and how every other process reaches it.

- :mod:`brainwork.service.handle`: the one open store of an owner process,
  shared by its threads (read and write claims).
- :mod:`brainwork.service.owner`: the owner's local socket, and the client
  every command uses to reach an owner before it would open the store itself.

Nothing here imports Textual; the workbench, ``brainwork serve`` and the
command line are adapters over it.
"""
