"""Japanese retrieval for J-tau's banking_knowledge_ja: tokenizer, BM25, embeddings, tau2 variants."""
