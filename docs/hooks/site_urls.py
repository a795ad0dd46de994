"""What a built page loads by itself, and where its links go (for the offline checks).

``offline_widgets.py`` fails the build when a page would fetch anything from
another host; ``check_site.py`` lists every link to another host, which the
build cannot follow (no network here), in ``site/external-links.txt``.
"""

from __future__ import annotations

from html.parser import HTMLParser

_FETCHING_RELS = {"stylesheet", "icon", "preload", "modulepreload", "manifest", "prefetch"}


class _Urls(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.fetched: set[str] = set()
        self.linked: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag == "a" and values.get("href"):
            self.linked.add(values["href"])
        elif tag == "link":
            if _FETCHING_RELS & set(values.get("rel", "").lower().split()):
                self.fetched.add(values.get("href", ""))
        else:
            for name in ("src", "poster", "data"):
                if values.get(name):
                    self.fetched.add(values[name])
            for candidate in values.get("srcset", "").split(","):
                if candidate.strip():
                    self.fetched.add(candidate.split()[0])


def is_remote(url: str) -> bool:
    return url.startswith(("http://", "https://", "//"))


def page_urls(html: str) -> tuple[set[str], set[str]]:
    """``(fetched, linked)``: the URLs a page loads by itself, and its ``<a href>`` targets."""
    parser = _Urls()
    parser.feed(html)
    return parser.fetched, parser.linked


def remote_fetches(html: str) -> list[str]:
    """The URLs on other hosts a browser would load by itself to show ``html``."""
    return sorted(url for url in page_urls(html)[0] if is_remote(url))
