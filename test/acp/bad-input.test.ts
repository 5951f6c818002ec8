/**
 * What a broken or hostile client sends, written as raw bytes (the SDK would
 * refuse to send them): each gets a JSON-RPC error — or, for a stray
 * response, nothing, as JSON-RPC says — and `north acp` stays up: a prompt
 * afterwards still runs to its end.
 */
import { describe, expect, it } from "vitest";
import type { AcpClient } from "../kit/acp-client";
import { useAcpTestbed } from "../kit/acp-testbed";

const bed = useAcpTestbed({ "src/app.ts": "export const app = 1;\n" });

interface RawResponse {
    id: unknown;
    result?: Record<string, unknown>;
    error?: { code: number; message: string; data?: unknown };
}

const line = (message: unknown): string => `${JSON.stringify(message)}\n`;

async function request(
    acp: AcpClient,
    id: string,
    method: string,
    params: unknown
): Promise<RawResponse> {
    await acp.sendRaw(line({ jsonrpc: "2.0", id, method, params }));
    return (await acp.waitForResponse(id)) as RawResponse;
}

async function rawStart(): Promise<AcpClient> {
    const acp = await bed.start({ sdk: false });
    const init = await request(acp, "init", "initialize", {
        protocolVersion: 1,
        clientCapabilities: {},
    });
    expect(init.result?.protocolVersion).toBe(1);
    return acp;
}

/** North still works: a new session takes a prompt and ends the turn. */
async function stillServes(acp: AcpClient, tag: string): Promise<void> {
    bed.server.enqueue({ text: `Still serving ${tag}.` });
    const session = await request(acp, `${tag}-new`, "session/new", {
        cwd: bed.repo,
        mcpServers: [],
    });
    const sessionId = session.result?.sessionId as string;
    expect(sessionId).toEqual(expect.any(String));
    const answer = await request(acp, `${tag}-prompt`, "session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "are you there?" }],
    });
    expect(answer.result).toEqual({ stopReason: "end_turn" });
}

describe("bad input", () => {
    it("malformed JSON is a parse error (-32700, id null)", async () => {
        const acp = await rawStart();
        await acp.sendRaw('{"jsonrpc":"2.0","id":"half","method":"initialize",\n');
        const answer = (await acp.waitForResponse(null)) as RawResponse;
        expect(answer.error?.code).toBe(-32700);
        await stillServes(acp, "after-parse-error");
    });

    it("JSON that is not a JSON-RPC message, or a batch, is an invalid request (-32600)", async () => {
        const acp = await rawStart();
        await acp.sendRaw(line({ editor: "hello" }));
        await acp.sendRaw("42\n");
        await acp.sendRaw(
            line([{ jsonrpc: "2.0", id: "in-batch", method: "initialize", params: {} }])
        );
        await acp.waitFor("three invalid-request errors", () => {
            const errors = acp.lines.filter(
                (l) => (l as RawResponse | undefined)?.error?.code === -32600
            );
            return errors.length >= 3 ? errors : undefined;
        });
        await stillServes(acp, "after-invalid");
    });

    it("an unknown method is method-not-found (-32601); an unknown notification is ignored", async () => {
        const acp = await rawStart();
        await acp.sendRaw(line({ jsonrpc: "2.0", method: "editor/unheard_of", params: {} }));
        const answer = await request(acp, "unknown", "session/teleport", { sessionId: "x" });
        expect(answer.error?.code).toBe(-32601);
        // Only the request was answered: a notification never gets an answer, not even an error.
        const errors = acp.lines.filter((l) => (l as RawResponse | undefined)?.error !== undefined);
        expect(errors).toHaveLength(1);
        await stillServes(acp, "after-unknown");
    });

    it("a prompt for an unknown session is an error naming it", async () => {
        const acp = await rawStart();
        const answer = await request(acp, "ghost", "session/prompt", {
            sessionId: "no-such-session",
            prompt: [{ type: "text", text: "hello?" }],
        });
        expect(answer.error?.code).toBeLessThan(0);
        expect(JSON.stringify(answer.error)).toContain("no-such-session");
        await stillServes(acp, "after-ghost");
    });

    it("invalid params are an invalid-params error (-32602)", async () => {
        const acp = await rawStart();
        const answer = await request(acp, "no-cwd", "session/new", { mcpServers: "none" });
        expect(answer.error?.code).toBe(-32602);
        await stillServes(acp, "after-invalid-params");
    });

    it("a permission answer for a request North never made is ignored", async () => {
        const acp = await rawStart();
        await acp.sendRaw(
            line({
                jsonrpc: "2.0",
                id: 4242,
                result: { outcome: { outcome: "selected", optionId: "allow" } },
            })
        );
        await acp.sendRaw(
            line({ jsonrpc: "2.0", id: 4243, error: { code: -32000, message: "nope" } })
        );
        await stillServes(acp, "after-stray-response");
        // JSON-RPC: a response is never answered.
        const answered = acp.lines.filter((l) => {
            const id = (l as RawResponse | undefined)?.id;
            return id === 4242 || id === 4243;
        });
        expect(answered).toEqual([]);
    });

    it("a 64 MB prompt line is an error carrying its id, and North stays up", async () => {
        const acp = await rawStart();
        const session = await request(acp, "big-new", "session/new", {
            cwd: bed.repo,
            mcpServers: [],
        });
        const sessionId = session.result?.sessionId as string;
        const text = "x".repeat(64 * 1024 * 1024);
        await acp.sendRaw(
            line({
                jsonrpc: "2.0",
                id: "huge",
                method: "session/prompt",
                params: { sessionId, prompt: [{ type: "text", text }] },
            })
        );
        const answer = (await acp.waitForResponse("huge")) as RawResponse;
        expect(answer.error?.code).toBeLessThan(0);
        expect(answer.error?.message).toMatch(/too large|limit/i);
        // Nothing of it reached the model.
        expect(bed.server.requests).toHaveLength(0);
        await stillServes(acp, "after-huge");
    });

    it("requests before initialize are refused until it is answered", async () => {
        const acp = await bed.start({ sdk: false });
        const early = await request(acp, "early", "session/new", { cwd: bed.repo, mcpServers: [] });
        expect(early.error?.code).toBeLessThan(0);
        const init = await request(acp, "init", "initialize", {
            protocolVersion: 1,
            clientCapabilities: {},
        });
        expect(init.result?.protocolVersion).toBe(1);
        await stillServes(acp, "after-early");
    });

    it("audio, which North does not take (nor advertise), is an invalid-params error", async () => {
        const acp = await rawStart();
        const session = await request(acp, "audio-new", "session/new", {
            cwd: bed.repo,
            mcpServers: [],
        });
        const answer = await request(acp, "audio", "session/prompt", {
            sessionId: session.result?.sessionId,
            prompt: [
                { type: "text", text: "listen" },
                { type: "audio", mimeType: "audio/wav", data: "UklGRgAAAABXQVZF" },
            ],
        });
        expect(answer.error?.code).toBe(-32602);
        expect(bed.server.requests).toHaveLength(0);
        await stillServes(acp, "after-audio");
    });
});
