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

    it("summarises tool arguments: allowed fields cut short, other text as its size", () => {
        expect(
            summarizeArgs({
                path: "a.ts",
                content: "secret code",
                apiKey: "sk-1",
                n: 3,
                list: [1, "two"],
                batch: [{ tool: "edit_create_file", path: "b.ts", content: "x" }],
                file: "p".repeat(200),
            })
        ).toEqual({
            path: "a.ts",
            content: "[11 chars]",
            apiKey: "[4 chars]",
            n: 3,
            list: [1, "[3 chars]"],
            batch: [{ tool: "edit_create_file", path: "b.ts", content: "[1 chars]" }],
            file: `${"p".repeat(120)}…`,
        });
    });

    it("masks the given secrets wherever they appear, escaped or nested", () => {
        const path = join(temp(), "north.log");
        const key = 'sk-ant-"quoted"-0123456789';
        const logger = createFileLogger(path, "info", { secrets: [key, undefined, "short"] });
        logger.error("run_failed", { message: `401: bad key ${key}`, nested: { k: [key] } });
        logger.info("short", { word: "short" });
        logger.flush();
        const text = readFileSync(path, "utf8");
        expect(text).not.toContain("0123456789");
        expect(text.match(/\[redacted\]/g)).toHaveLength(2);
        // Values under 8 characters are left alone: they would blot out ordinary words.
        expect(JSON.parse(text.trim().split("\n")[1]!).data.word).toBe("short");
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
