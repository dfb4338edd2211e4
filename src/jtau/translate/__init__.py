"""Stage 4b: translation.  The translation memory (`tm`) answers what it holds; the
machine-translation client (`client`) fills the misses through any OpenAI-compatible
endpoint, and every answer passes `check` before it reaches the memory."""
