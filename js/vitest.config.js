import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    environment: "jsdom",
    include: ["test/**/*.test.js"],
    // A ceiling, never a measured speed: `make test` runs this beside mypy
    // and the linters, and a loop over every XSS payload in jsdom took 11 s
    // there (vitest's default of 5 s failed it).
    testTimeout: 30_000,
  },
});
