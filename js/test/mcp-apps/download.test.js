// `ui/download-file` in jsdom: what the confirmation shows, what is refused
// before any bar (over 10 MB, a link to fetch), names that cannot be paths.
// The download itself (a Blob URL on the user's click) is proved in Chromium
// through the official SDK's App (tests/e2e/test_mcp_apps.py).
import { describe, expect, it } from "vitest";
import { MAX_DOWNLOAD_BYTES, downloadDetails, downloadFiles, fileNameOf, sizeText } from "../../src/mcp-apps/download.js";

const embedded = (uri, extra) => ({ type: "resource", resource: { uri, mimeType: "text/csv", ...extra } });

describe("ui/download-file", () => {
  it("reads embedded text and base64 files with their UTF-8 size", () => {
    const files = downloadFiles({ contents: [embedded("file:///r%C3%A9sum%C3%A9.csv", { text: "é,b\n" }), embedded("file:///x.bin", { blob: btoa("\x00\x01\x02") })] });
    expect(files.map((f) => [f.name, f.size, f.type])).toEqual([
      ["résumé.csv", 5, "text/csv"],
      ["x.bin", 3, "text/csv"],
    ]);
  });

  it("refuses over the cap before decoding, and a link it would have to fetch", () => {
    const big = embedded("file:///big.csv", { text: "x".repeat(MAX_DOWNLOAD_BYTES + 1) });
    expect(() => downloadFiles({ contents: [big] })).toThrow("over 10 MB");
    const twoHalves = embedded("file:///h.csv", { text: "x".repeat(MAX_DOWNLOAD_BYTES / 2 + 1) });
    expect(() => downloadFiles({ contents: [twoHalves, twoHalves] })).toThrow("over 10 MB");
    const blob = embedded("file:///b.bin", { blob: "A".repeat(Math.ceil((MAX_DOWNLOAD_BYTES * 4) / 3) + 8) });
    expect(() => downloadFiles({ contents: [blob] })).toThrow("over 10 MB");
    expect(() => downloadFiles({ contents: [{ type: "resource_link", uri: "https://example.com/f", name: "f" }] })).toThrow("resource_link");
    expect(() => downloadFiles({ contents: [] })).toThrow("needs contents");
    expect(() => downloadFiles({ contents: [embedded("file:///n.bin", { blob: "@@not base64@@" })] })).toThrow("not base64");
  });

  it("names a file by its URI's last segment, never a path", () => {
    expect(fileNameOf("file:///tmp/../../etc/passwd")).toBe("passwd");
    expect(fileNameOf("file:///a%2F..%2Fb.txt")).toBe("a..b.txt");
    expect(fileNameOf("file:///")).toBe("download");
    expect(fileNameOf("file:///..")).toBe("download");
    expect(fileNameOf("file:///a\u0000b\u001f.txt")).toBe("ab.txt");
  });

  it("shows each name, size and type, a bidi override in the name flagged", () => {
    const [plain] = downloadFiles({ contents: [embedded("file:///report.csv", { text: "a,b\n1,2\n" })] });
    const shown = downloadDetails([plain]);
    expect(shown.textContent).toContain("report.csv 8 bytes, text/csv");
    expect(shown.querySelector(".gu-invisible-warning")).toBeNull();
    const [tricky] = downloadFiles({ contents: [embedded("file:///invoice\u202Efdp.exe", { text: "MZ" })] });
    const flagged = downloadDetails([tricky]);
    expect(flagged.querySelector(".gu-invisible-warning")?.textContent).toContain("1 invisible or bidirectional character");
    expect(flagged.querySelectorAll(".gu-app-download-name .gu-invisible")).toHaveLength(1);
  });

  it("says sizes the way people read them", () => {
    expect([sizeText(1), sizeText(8), sizeText(2048), sizeText(3 * 1024 * 1024)]).toEqual(["1 byte", "8 bytes", "2.0 KB", "3.0 MB"]);
  });
});
