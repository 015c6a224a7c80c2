"""The learning loop: capture, embeddings, consolidation, rules, doctrine, recall, effect."""
