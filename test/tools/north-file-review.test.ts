import { promises as fs, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ApprovalRequest, Approver } from "../../src/agent/approvals";
import { createNoStandingApprovals } from "../../src/agent/approvals";
import type { EngineEvent } from "../../src/agent/events";
import {
    MAX_NORTH_FILE_CONTINUATIONS,
    NorthFileRouter,
    settleNorthFiles,
} from "../../src/agent/north-file-turn";
import { silentLogger } from "../../src/storage/logger";
import { failingSidecar } from "./north-file-fixtures";

const roots: string[] = [];

async function repo(files: Record<string, string> = {}): Promise<string> {
    const root = realpathSync(await fs.mkdtemp(path.join(tmpdir(), "north-nfr-")));
    roots.push(root);
    for (const [name, content] of Object.entries(files))
        await fs.writeFile(path.join(root, name), content);
    return root;
}

afterEach(async () => {
    for (const root of roots.splice(0)) await fs.rm(root, { recursive: true, force: true });
});

const listing = async (root: string) => (await fs.readdir(root)).sort();
const read = (root: string, name: string) => fs.readFile(path.join(root, name), "utf8");

/** One model turn through the router, then the review; the approver answers every request. */
function harness(root: string, answer: "approve" | "deny", router = new NorthFileRouter(root)) {
    const requests: ApprovalRequest[] = [];
    const events: EngineEvent[] = [];
    const approver: Approver = async (request) => {
        requests.push(request);
        return answer === "approve"
            ? { outcome: "approve" }
            : { outcome: "deny", reason: "the user rejected this edit" };
    };
    let turn = 0;
    const emit = (event: EngineEvent) => void events.push(event);
    return {
        requests,
        events,
        router,
        async turn(...chunks: string[]): Promise<string[]> {
            for (const chunk of chunks) await router.feed(chunk, emit);
            return settleNorthFiles(router, ++turn, new AbortController().signal, {
                approver,
                settings: createNoStandingApprovals(),
                repoRoot: root,
                logger: silentLogger,
                emit,
            });
        },
    };
}

const ORIGINAL = "export const keep = true;\n";

describe("NORTH_FILE review in the chat path", () => {
    it("a rejected block leaves the file byte-identical and no sidecar behind", async () => {
        const root = await repo({ "a.ts": ORIGINAL });
        const chat = harness(root, "deny");
        const notes = await chat.turn(
            'Here:\n<NORTH_FILE path="a.ts">\nexport const',
            " keep = false;\n</NORTH_FILE>\n"
        );
        expect(chat.requests).toHaveLength(1);
        expect(chat.requests[0]).toMatchObject({ kind: "write", summary: "Editing a.ts" });
        expect(chat.requests[0]?.diffs?.[0]?.diff).toContain("+export const keep = false;");
        expect(notes.join("\n")).toContain("NORTH_FILE a.ts: rejected");
        expect(await read(root, "a.ts")).toBe(ORIGINAL);
        expect(await listing(root)).toEqual(["a.ts"]);
    });

    it("an accepted block replaces the file", async () => {
        const root = await repo({ "a.ts": ORIGINAL });
        const chat = harness(root, "approve");
        const notes = await chat.turn('<NORTH_FILE path="a.ts">\nnew\n</NORTH_FILE>');
        expect(notes).toEqual(["[North] NORTH_FILE a.ts: written (1 lines) and accepted."]);
        expect(await read(root, "a.ts")).toBe("new\n");
        expect(await listing(root)).toEqual(["a.ts"]);
    });

    it(`offers a block cut off ${MAX_NORTH_FILE_CONTINUATIONS + 1} times for review as partial; rejected, nothing is written`, async () => {
        const root = await repo({ "big.ts": ORIGINAL });
        const chat = harness(root, "deny");
        const first = await chat.turn('<NORTH_FILE path="big.ts">\nline 1\n');
        expect(first.join("\n")).toContain('mode="append"');
        for (let i = 2; i <= MAX_NORTH_FILE_CONTINUATIONS + 1; i++) {
            const notes = await chat.turn(`<NORTH_FILE path="big.ts" mode="append">line ${i}\n`);
            expect(await read(root, "big.ts")).toBe(ORIGINAL);
            if (i <= MAX_NORTH_FILE_CONTINUATIONS) expect(chat.requests).toHaveLength(0);
            else {
                expect(notes.join("\n")).toContain("was rejected");
                expect(notes.join("\n")).toContain("big.ts is as it was before");
            }
        }
        expect(chat.requests).toHaveLength(1);
        expect(chat.requests[0]?.summary).toBe("Editing big.ts (partial: cut off after 4 lines)");
        expect(chat.requests[0]?.diffs?.[0]?.diff).toContain("+line 4");
        expect(chat.events).toContainEqual(
            expect.objectContaining({
                type: "warning",
                message: expect.stringContaining("goes to review") as unknown,
            })
        );
        expect(await read(root, "big.ts")).toBe(ORIGINAL);
        expect(await listing(root)).toEqual(["big.ts"]);
    });

    it("a write error ends the block with a warning and a note, and removes the sidecar", async () => {
        const root = await repo({ "f.ts": ORIGINAL });
        const sidecar = failingSidecar({ failAfterBytes: 16, code: "EFBIG" });
        const chat = harness(
            root,
            "approve",
            new NorthFileRouter(root, { openSidecar: sidecar.open })
        );
        const body = Array.from({ length: 200 }, (_, i) => `const v${i} = ${i};\n`);
        const notes = await chat.turn(
            'Writing.\n<NORTH_FILE path="f.ts">\n',
            ...body,
            "</NORTH_FILE>\nDone."
        );
        expect(notes).toHaveLength(1);
        expect(notes[0]).toContain("NORTH_FILE f.ts: failed: Writing f.ts failed");
        expect(notes[0]).toContain("file size limit");
        expect(chat.requests).toEqual([]);
        const warnings = chat.events.filter((e) => e.type === "warning");
        expect(warnings).toHaveLength(1);
        expect(JSON.stringify(warnings[0])).toContain(
            "rest of its content dropped. Nothing was written."
        );
        const text = chat.events.flatMap((e) => (e.type === "text_delta" ? [e.text] : []));
        expect(text.join("")).toBe("Writing.\nDone.");
        expect(sidecar.writeCalls()).toBeLessThan(5);
        expect(await read(root, "f.ts")).toBe(ORIGINAL);
        expect(await listing(root)).toEqual(["f.ts"]);
    });

    it("a cancelled run drops the sidecar of a cut-off block", async () => {
        const root = await repo({ "c.ts": ORIGINAL });
        const chat = harness(root, "approve");
        await chat.turn('<NORTH_FILE path="c.ts">\nhalf');
        expect((await listing(root)).length).toBe(2);
        expect(await chat.router.discardUnfinished()).toEqual(["c.ts"]);
        expect(await listing(root)).toEqual(["c.ts"]);
        expect(await read(root, "c.ts")).toBe(ORIGINAL);
    });

    it("a failed answer drops its completed blocks unreviewed", async () => {
        const root = await repo({ "d.ts": ORIGINAL });
        const chat = harness(root, "approve");
        await chat.router.feed('<NORTH_FILE path="d.ts">\nnew\n</NORTH_FILE>', () => undefined);
        await chat.router.dropTurn();
        expect(chat.requests).toEqual([]);
        expect(await listing(root)).toEqual(["d.ts"]);
        expect(await read(root, "d.ts")).toBe(ORIGINAL);
    });
});
