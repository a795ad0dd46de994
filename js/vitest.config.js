import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    environment: "jsdom",
    include: ["test/**/*.test.js"],
    // A ceiling, never a measured speed: `make test` runs this beside mypy,
    // the linters and the docs build, and a loop over every XSS payload in
    // jsdom (2 s alone) took 11 s there once and 37 s in a fresh clone.
    testTimeout: 120_000,
  },
});
