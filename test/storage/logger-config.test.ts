import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadUserConfig } from "../../src/storage/config";
import { createFileLogger, summarizeArgs } from "../../src/storage/logger";

const dirs: string[] = [];
const temp = () => {
    const dir = mkdtempSync(join(tmpdir(), "north-storage-"));
    dirs.push(dir);
    return dir;
};
afterEach(() => {
    for (const d of dirs.splice(0)) {
        rmSync(d, { recursive: true, force: true });
    }
});

describe("logger", () => {
    it("appends JSON lines at or above the level", () => {
        const path = join(temp(), "state", "north.log");
        const logger = createFileLogger(path, "info");
        logger.debug("hidden");
        logger.info("app_start", { version: "1" });
        logger.error("boom", { n: 1 });
        logger.flush();
        const lines = readFileSync(path, "utf8")
            .trim()
            .split("\n")
            .map((l) => JSON.parse(l));
        expect(lines.map((l) => [l.level, l.event])).toEqual([
            ["info", "app_start"],
            ["error", "boom"],
        ]);
        expect(lines[0].timestamp).toMatch(/^\d{4}-\d\d-\d\dT/);
    });

    it("never throws when the log cannot be written", () => {
        // A file where the log folder should be: fails for root too, unlike permissions.
        const blocker = join(temp(), "blocker");
        writeFileSync(blocker, "");
        const logger = createFileLogger(join(blocker, "sub", "north.log"));
        expect(() => {
            logger.info("x");
            logger.flush();
            logger.info("y");
            logger.flush();
        }).not.toThrow();
    });

    it("summarises tool arguments without contents or secrets", () => {
        expect(
            summarizeArgs({
                path: "a.ts",
                content: "secret code",
                apiKey: "sk-1",
                n: 3,
                list: [1, 2],
            })
        ).toEqual({
            path: "a.ts",
            content: "[11 chars]",
            apiKey: "[redacted]",
            n: 3,
            list: "[array 2]",
        });
    });
});

describe("config", () => {
    it("treats a missing file as empty and reports invalid fields by path", () => {
        const dir = temp();
        expect(loadUserConfig({ NORTH_CONFIG_DIR: dir })).toMatchObject({ ok: true, config: {} });
        mkdirSync(dir, { recursive: true });
        writeFileSync(
            join(dir, "config.json"),
            JSON.stringify({ models: [{ alias: "x", id: "y" }] })
        );
        const bad = loadUserConfig({ NORTH_CONFIG_DIR: dir });
        expect(bad.ok).toBe(false);
        expect(!bad.ok && bad.error).toContain("models.0.provider");
    });
});
