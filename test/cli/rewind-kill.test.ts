import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type KillAim, killDuringEdit, measureEditWindow } from "../kit/checkpoint-kill";
import { type PacedLlmServer, startPacedLlmServer } from "../kit/paced-llm-server";

let server: PacedLlmServer;
let repo: string;
const env = () => ({ ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.anthropicBaseUrl });

beforeAll(async () => {
    server = await startPacedLlmServer();
    repo = mkdtempSync(join(tmpdir(), "north-rewind-kill-"));
});
afterAll(async () => {
    await server.close();
    rmSync(repo, { recursive: true, force: true });
});

describe("kill -9 during a checkpointed edit", () => {
    it("after resume, rewind restores the exact bytes, whenever the kill lands", async () => {
        const window = await measureEditWindow(server, repo, env());
        const outcomes = [];
        // Anywhere in the window (and a little past it), and right after a
        // checkpoint record, between it and the renames.
        const kills: Array<[number, KillAim]> = [
            ...[0.2, 0.6, 1.1].map((f): [number, KillAim] => [
                f * window * Math.random(),
                "answer",
            ]),
            ...[0, 1, 3].map((ms): [number, KillAim] => [ms * Math.random(), "checkpoint"]),
        ];
        for (const [at, aim] of kills)
            outcomes.push(await killDuringEdit(server, repo, env(), at, aim));
        for (const o of outcomes) expect(o.detail).toBe("");
        expect(outcomes.every((o) => o.exact)).toBe(true);
        // North never left a changed file without the checkpoint that undoes it.
        for (const o of outcomes) if (o.atKill !== "original") expect(o.records).toBeGreaterThan(0);
        // The kills aimed after a record did land before the edit finished.
        expect(outcomes.slice(3).filter((o) => o.records > 0 && o.killed).length).toBeGreaterThan(
            0
        );
        expect(server.remaining()).toBe(0);
    }, 120_000);
});
