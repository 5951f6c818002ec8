/**
 * Bad servers never block an edit or a turn: a scripted server
 * (test/kit/fake-lsp-server.ts) crashes, hangs, floods, grows and writes
 * garbage; the service restarts once, then disables the server with one
 * warning, stops idle servers and starts nothing in an untrusted project.
 * Idle, memory sampling, request limits and budgets run on a manual clock.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { LspClient, MAX_OPEN_DOCUMENTS } from "../../../src/tools/lsp/client";
import { type LanguageServiceOptions, createLanguageService } from "../../../src/tools/lsp/manager";
import type { LanguageService, LspServerStatus } from "../../../src/tools/lsp/types";
import { type FakeLspScenario, fakeLspServer } from "../../kit/fake-lsp-server";
import { type ManualTimers, manualTimers } from "../../kit/manual-timers";
import { runScript } from "../../kit/run-script";

const TEST_TIMEOUT_MS = 60_000;
const STARTUP_TIMEOUT_MS = 20_000;
const MEMORY_SAMPLE_MS = 5_000;
const WAIT = { timeout: 30_000, interval: 20 };

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
});

interface FakeProject {
    service: LanguageService;
    root: string;
    file: string;
    timers: ManualTimers;
    warnings: string[];
    starts(): number;
    status(): LspServerStatus | undefined;
}

function fakeProject(
    scenario: FakeLspScenario,
    options: Partial<LanguageServiceOptions> = {}
): FakeProject {
    const root = mkdtempSync(join(tmpdir(), "north-lsp-fake-"));
    const file = join(root, "a.fake");
    writeFileSync(file, "fine\nERROR here\n");
    const startLog = join(root, "starts.log");
    const { command, args } = fakeLspServer({ startLog, ...scenario });
    const timers = manualTimers();
    const warnings: string[] = [];
    const service = createLanguageService({
        repoRoot: root,
        trusted: true,
        warn: (message) => warnings.push(message),
        timers,
        startupTimeoutMs: STARTUP_TIMEOUT_MS,
        memorySampleMs: MEMORY_SAMPLE_MS,
        builtIns: [
            { name: "fake", command, args, languages: { ".fake": "fake" }, origin: "built-in" },
        ],
        ...options,
    });
    cleanups.push(async () => {
        await service.dispose();
        rmSync(root, { recursive: true, force: true });
    });
    return {
        service,
        root,
        file,
        timers,
        warnings,
        starts: () =>
            existsSync(startLog) ? readFileSync(startLog, "utf8").trim().split("\n").length : 0,
        status: () => service.status().find((s) => s.name === "fake"),
    };
}

const never = () => new AbortController().signal;

describe("a server that fails", () => {
    it(
        "crashing on initialize is started once more, then disabled with one warning",
        async () => {
            const fake = fakeProject({ crashOnInitialize: true });
            expect(await fake.service.serverFor(fake.file, never())).toBeNull();
            expect(fake.status()).toMatchObject({ state: "stopped", restarts: 0 });
            expect(fake.status()?.lastError).toMatch(/exited with code 3/);
            expect(fake.warnings).toEqual([]);

            expect(await fake.service.serverFor(fake.file, never())).toBeNull();
            expect(fake.status()).toMatchObject({ state: "disabled", restarts: 1 });
            expect(fake.warnings).toHaveLength(1);
            expect(fake.warnings[0]).toMatch(/fake disabled for this session/);

            expect(await fake.service.serverFor(fake.file, never())).toBeNull();
            expect(fake.service.handles(fake.file)).toBe(false);
            expect(
                await fake.service.diagnostics([fake.file], { signal: never(), budgetMs: 1000 })
            ).toBeNull();
            expect(fake.starts()).toBe(2);
            expect(fake.warnings).toHaveLength(1);
        },
        TEST_TIMEOUT_MS
    );

    it(
        "crashing once mid-session is restarted on next use and works",
        async () => {
            // Relative: the server runs in the project folder, removed after the test.
            const fake = fakeProject({ crashOnRequest: 1, crashOnceMarker: "crashed.marker" });
            const server = await fake.service.serverFor(fake.file, never());
            if (!server) throw new Error("the fake server did not start");
            await expect(
                server.request("textDocument/documentSymbol", {}, never())
            ).rejects.toThrow();
            await vi.waitFor(() => expect(fake.status()?.state).toBe("stopped"), WAIT);
            expect(fake.status()?.lastError).toMatch(/exited with code 4/);

            const again = await fake.service.serverFor(fake.file, never());
            expect(again).not.toBeNull();
            expect(await again?.request("textDocument/documentSymbol", {}, never())).toEqual([]);
            expect(fake.status()).toMatchObject({ state: "running", restarts: 1 });
            expect(fake.warnings).toEqual([]);
        },
        TEST_TIMEOUT_MS
    );

    it(
        "hanging on initialize costs an edit only its budget, then counts as a failure",
        async () => {
            const fake = fakeProject({ hangOnInitialize: true });
            const view = fake.service.diagnostics([fake.file], { signal: never(), budgetMs: 3000 });
            fake.timers.advance(3000);
            expect(await view).toMatchObject({ complete: false });
            expect(fake.status()?.state).toBe("starting");

            // The initialize request's own limit is the only timer left once the server runs.
            await vi.waitFor(() => expect(fake.starts()).toBe(1), WAIT);
            await vi.waitFor(() => expect(fake.timers.pending()).toBe(1), WAIT);
            fake.timers.advance(STARTUP_TIMEOUT_MS);
            await vi.waitFor(() => expect(fake.status()?.state).toBe("stopped"), WAIT);
            expect(fake.status()?.lastError).toMatch(/did not answer initialize/);
        },
        TEST_TIMEOUT_MS
    );

    it(
        "writing garbage on stdout is stopped and reported",
        async () => {
            const fake = fakeProject({ garbageAfterInitialized: true });
            await fake.service.serverFor(fake.file, never());
            await vi.waitFor(() => expect(fake.status()?.state).toBe("stopped"), WAIT);
            expect(fake.status()?.lastError).toMatch(/broke the protocol/);
        },
        TEST_TIMEOUT_MS
    );

    it(
        "sending one endless message is stopped before North holds it all",
        async () => {
            const fake = fakeProject({ hugeMessageMbOnOpen: 48 });
            const view = await fake.service.diagnostics([fake.file], {
                signal: never(),
                budgetMs: 60_000,
            });
            expect(view?.complete).toBe(false);
            await vi.waitFor(() => expect(fake.status()?.state).toBe("stopped"), WAIT);
            expect(fake.status()?.lastError).toMatch(/more than 32 MB without a complete message/);
        },
        TEST_TIMEOUT_MS
    );

    it(
        "growing over its memory cap is restarted, then disabled",
        async () => {
            const fake = fakeProject(
                { allocateMbOnOpen: 300 },
                { settings: { memoryLimitMb: 250 } }
            );
            for (const round of [1, 2]) {
                const view = await fake.service.diagnostics([fake.file], {
                    signal: never(),
                    budgetMs: 60_000,
                });
                expect(view?.complete).toBe(true);
                fake.timers.advance(MEMORY_SAMPLE_MS);
                await vi.waitFor(
                    () => expect(fake.status()?.state).toBe(round === 1 ? "stopped" : "disabled"),
                    WAIT
                );
                expect(fake.status()?.lastError).toMatch(/over its memory cap of 250 MB/);
            }
            expect(fake.status()?.restarts).toBe(1);
            expect(fake.warnings).toHaveLength(1);
        },
        TEST_TIMEOUT_MS
    );
});

describe("a working server", () => {
    it(
        "reports diagnostics matching the synced version, with the text they describe",
        async () => {
            const fake = fakeProject({});
            const view = await fake.service.diagnostics([fake.file], {
                signal: never(),
                budgetMs: 60_000,
            });
            expect(view?.complete).toBe(true);
            expect(view?.byPath.get(fake.file)).toEqual([
                expect.objectContaining({ line: 2, column: 1, severity: "error", server: "fake" }),
            ]);
            expect(view?.text.get(fake.file)).toBe("fine\nERROR here\n");

            writeFileSync(fake.file, "fine\nfine\n");
            const after = await fake.service.diagnostics([fake.file], {
                signal: never(),
                budgetMs: 60_000,
            });
            expect(after?.byPath.get(fake.file)).toEqual([]);
            expect(fake.status()).toMatchObject({ state: "running", pullDiagnostics: false });
            expect(fake.status()?.pid).toEqual(expect.any(Number));
        },
        TEST_TIMEOUT_MS
    );

    it(
        "cancels an aborted request at the server and stays up",
        async () => {
            const fake = fakeProject({ hoverMarker: "hover" });
            const server = await fake.service.serverFor(fake.file, never());
            if (!server) throw new Error("the fake server did not start");
            const abort = new AbortController();
            const hover = server.request("textDocument/hover", {}, abort.signal);
            // Once the server runs it (a request still queued there is dropped unseen).
            await vi.waitFor(
                () => expect(existsSync(join(fake.root, "hover.started"))).toBe(true),
                WAIT
            );
            abort.abort();
            await expect(hover).rejects.toThrow(/aborted/);
            await vi.waitFor(
                () => expect(existsSync(join(fake.root, "hover.cancelled"))).toBe(true),
                WAIT
            );
            expect(fake.status()).toMatchObject({ state: "running", restarts: 0 });
        },
        TEST_TIMEOUT_MS
    );

    it(
        "is stopped after sitting idle and started again on the next file",
        async () => {
            const fake = fakeProject({}, { settings: { idleMinutes: 1 } });
            expect(await fake.service.serverFor(fake.file, never())).not.toBeNull();
            fake.timers.advance(30_000);
            expect(fake.status()?.state).toBe("running");
            fake.timers.advance(30_000);
            await vi.waitFor(() => expect(fake.status()?.state).toBe("stopped"), WAIT);
            expect(fake.service.running()).toEqual([]);

            expect(await fake.service.serverFor(fake.file, never())).not.toBeNull();
            expect(fake.status()).toMatchObject({ state: "running", restarts: 0 });
            expect(fake.starts()).toBe(2);
            expect(fake.warnings).toEqual([]);
        },
        TEST_TIMEOUT_MS
    );

    it(
        "keeps a bounded number of documents open, forgetting the least recently used",
        async () => {
            const fake = fakeProject({});
            const files = Array.from({ length: MAX_OPEN_DOCUMENTS + 1 }, (_, i) => {
                const file = join(fake.root, `f${i}.fake`);
                writeFileSync(file, "ERROR\n");
                return file;
            });
            for (const file of files) {
                const view = await fake.service.diagnostics([file], {
                    signal: never(),
                    budgetMs: 60_000,
                });
                expect(view?.byPath.get(file)).toHaveLength(1);
            }
            const server = fake.service.running()[0];
            if (!(server instanceof LspClient)) throw new Error("the fake server is not running");
            expect(server.openPaths()).toHaveLength(MAX_OPEN_DOCUMENTS);
            expect(server.openPaths()).not.toContain(files[0]);
            expect(server.reported().has(files[0]!)).toBe(false);
            expect(server.reported().has(files.at(-1)!)).toBe(true);
        },
        TEST_TIMEOUT_MS
    );

    it(
        "keeps a flood of notifications bounded and still answers",
        async () => {
            const fake = fakeProject({ floodOnOpen: 50_000 });
            const server = await fake.service.serverFor(fake.file, never());
            if (!(server instanceof LspClient)) throw new Error("the fake server did not start");
            const view = await fake.service.diagnostics([fake.file], {
                signal: never(),
                budgetMs: 60_000,
            });
            expect(view?.complete).toBe(true);
            expect(view?.byPath.get(fake.file)).toHaveLength(1);
            expect(server.droppedNotifications).toBeGreaterThan(0);
            // Against 50,000 sent: the connection's queue never held more than a few hundred.
            expect(server.largestBacklog).toBeLessThan(1000);
        },
        TEST_TIMEOUT_MS
    );
});

/** Running, not a zombie waiting for its parent (init) to collect it. */
function running(pid: number): boolean {
    try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
    } catch {
        return false;
    }
}

describe("North's exit", () => {
    it.runIf(process.platform === "linux")(
        "takes its servers and what they started with it, without a dispose",
        async () => {
            const fake = fakeProject({});
            // The server outlives its closed stdin: only North's exit hook stops it.
            const { command, args } = fakeLspServer({ childPidFile: "child.pid" });
            const manager = new URL("../../../src/tools/lsp/manager.ts", import.meta.url).pathname;
            const script = `
import { createLanguageService } from ${JSON.stringify(manager)};
const service = createLanguageService({
    repoRoot: ${JSON.stringify(fake.root)},
    trusted: true,
    warn: (message) => console.error(message),
    builtIns: [{ name: "fake", command: ${JSON.stringify(command)}, args: ${JSON.stringify(args)}, languages: { ".fake": "fake" }, origin: "built-in" }],
});
void service.serverFor(${JSON.stringify(fake.file)}, new AbortController().signal).then(() => {
    console.log(JSON.stringify(service.status()[0]?.pid ?? null));
    process.exit(0);
});
`;
            const run = await runScript(fake.root, script, []);
            if (run.stdout.trim() === "") throw new Error(`the script failed: ${run.stderr}`);
            const pid = JSON.parse(run.stdout.trim()) as number | null;
            if (pid === null) throw new Error(`the server did not start: ${run.stderr}`);
            const child = Number(readFileSync(join(fake.root, "child.pid"), "utf8"));
            await vi.waitFor(
                () => expect([running(pid), running(child)]).toEqual([false, false]),
                WAIT
            );
        },
        TEST_TIMEOUT_MS
    );
});

describe("an untrusted project", () => {
    it("starts no server and says why", async () => {
        const fake = fakeProject({}, { trusted: false });
        expect(fake.service.hasServers()).toBe(false);
        expect(fake.service.handles(fake.file)).toBe(false);
        expect(await fake.service.serverFor(fake.file, never())).toBeNull();
        expect(
            await fake.service.diagnostics([fake.file], { signal: never(), budgetMs: 1000 })
        ).toBeNull();
        expect(fake.service.status().every((s) => s.lastError === "project not trusted")).toBe(
            true
        );
        expect(fake.starts()).toBe(0);
    });
});
