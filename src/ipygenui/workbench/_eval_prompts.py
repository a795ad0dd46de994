"""A fixed set of 20 prompts for the built-in Chart, Table and Metric components and a
weather tool, with the call each should make: the workbench notebook's eval and
``benchmarks/bench_evaluate.py`` run it on the offline demo model."""

from __future__ import annotations

DEMO_PROMPTS: list[tuple[str, str | None]] = [
    ("Show me a chart of monthly sales", "Chart"),
    ("Plot the monthly sales as a line chart", "Chart"),
    ("Draw a bar chart of orders per day", "Chart"),
    ("Chart revenue for 2025 against 2026", "Chart"),
    ("Show the top products in a table", "Table"),
    ("List the products with their units in a table", "Table"),
    ("Put the sales figures in a table I can sort", "Table"),
    ("Show monthly sales as a table, not a chart", "Table"),
    ("Show this month's revenue metric", "Metric"),
    ("What are this month's headline metrics?", "Metric"),
    ("Give me the KPI metric cards for revenue and orders", "Metric"),
    ("How are we doing this month? Just the numbers", "Metric"),
    ("What's the weather in Paris?", "get_weather"),
    ("Is it raining in Tokyo? Check the weather", "get_weather"),
    ("Weather for New York tomorrow, please", "get_weather"),
    ("Should I take an umbrella in London?", "get_weather"),
    ("Hello! What can you do?", None),
    ("What is ipygenui?", None),
    ("How do I use a real model?", None),
    ("Thanks, that's all", None),
]
