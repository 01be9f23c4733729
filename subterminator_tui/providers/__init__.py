"""The model SDKs behind one provider-neutral client: a conversation in, one reply out.

- ``base``              the neutral types (messages, tool specs, replies) and ModelClient
- ``anthropic_client``  Anthropic's Messages API, with its prompt-cache breakpoints
- ``openai_client``     OpenAI's Chat Completions API and servers that imitate it
- ``resolution``        which model, which provider serves it, and its client
- ``retry``             the one retry layer: bounded attempts, fixed back-off, scrubbed errors

Token counts and prices live below every layer, in ``subterminator_tui/costs.py``.
"""
