/**
 * `north -p --model gemini:…` through the built CLI (bin/north.js) against
 * the fake Gemini API: a tool loop (read a file, answer) with the thought
 * signature replayed, images in both directions, and the path through a proxy.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FOREIGN_CALL_SIGNATURE } from "../../src/providers/gemini-wire";
import { FAKE_GEMINI_KEY, type FakeGemini, startFakeGemini } from "../kit/fake-gemini";
import { pngImage } from "../kit/images";
import { isolatedHome, runNorth } from "../kit/run-north";
import { type TestProxy, startTestProxy } from "../kit/test-proxy";

let fake: FakeGemini;
let repo: string;
let home: string;
let env: NodeJS.ProcessEnv;
const png = pngImage(3, 2);

interface Part {
    text?: string;
    thoughtSignature?: string;
    inlineData?: { mimeType: string; data: string };
    functionCall?: { id?: string; name: string; args: unknown };
    functionResponse?: { id?: string; name: string; response: { output?: string } };
}
type Body = { contents: Array<{ role: string; parts: Part[] }> };
const body = (n: number) => fake.requests.filter((r) => r.method === "POST")[n]!.body as Body;

beforeAll(async () => {
    fake = await startFakeGemini();
});
afterAll(() => fake.close());
beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), "north-gemini-repo-"));
    writeFileSync(join(repo, "notes.txt"), "The launch code is 4711.\n");
    writeFileSync(join(repo, "pic.png"), png);
    const isolated = isolatedHome();
    home = isolated.home;
    env = { ...isolated.env, GEMINI_API_KEY: FAKE_GEMINI_KEY, GOOGLE_GEMINI_BASE_URL: fake.url };
    fake.requests.length = 0;
});
afterEach(() => {
    expect(fake.remaining()).toBe(0);
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

/** A catalogue entry for the model that says it reads images. */
function imageModel(): void {
    const configDir = join(home, "config");
    mkdirSync(configDir, { recursive: true });
    writeFileSync(
        join(configDir, "config.json"),
        JSON.stringify({
            models: [
                {
                    alias: "g3",
                    id: "gemini-3-flash",
                    provider: "gemini",
                    display: "Gemini 3 Flash",
                    images: true,
                },
            ],
        })
    );
}

describe("north -p with a Gemini model", () => {
    it("reads a file through a function call and answers; the call's signature goes back", async () => {
        fake.enqueue(
            { toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] },
            { text: "The code is 4711." }
        );
        const run = await runNorth(
            [
                "-p",
                "what is the launch code in notes.txt?",
                "--model",
                "gemini:gemini-3-flash",
                "--path",
                repo,
            ],
            { env }
        );
        expect(run.code, run.stderr).toBe(0);
        expect(run.stdout).toBe("The code is 4711.\n");
        const second = body(1).contents;
        const call = second[1]!.parts.find((p) => p.functionCall)!;
        expect(call.functionCall).toMatchObject({ name: "read_file", args: { path: "notes.txt" } });
        expect(call.thoughtSignature).toBeTruthy();
        const response = second[2]!.parts[0]!.functionResponse!;
        expect(response).toMatchObject({ id: call.functionCall!.id, name: "read_file" });
        expect(response.response.output).toContain("The launch code is 4711.");
    });

    it("keeps the signature in the saved conversation: --continue sends it back as received", async () => {
        fake.enqueue(
            { toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] },
            { text: "The code is 4711." },
            { text: "Still 4711." }
        );
        const model = ["--model", "gemini:gemini-3-flash", "--path", repo];
        const first = await runNorth(["-p", "what is the launch code?", ...model], {
            env,
            cwd: repo,
        });
        expect(first.code, first.stderr).toBe(0);
        const signature = body(1).contents[1]!.parts.find((p) => p.functionCall)!.thoughtSignature;
        const again = await runNorth(["-p", "--continue", "and now?", ...model], {
            env,
            cwd: repo,
        });
        expect(again.code, again.stderr).toBe(0);
        expect(again.stdout).toBe("Still 4711.\n");
        const replayed = body(2).contents.find((c) => c.parts.some((p) => p.functionCall))!;
        expect(replayed.parts.find((p) => p.functionCall)!.thoughtSignature).toBe(signature);
        expect(signature).not.toBe(FOREIGN_CALL_SIGNATURE);
    });

    it("sends an @image inline and a picture read_file returns after its function response", async () => {
        imageModel();
        fake.enqueue(
            { toolCalls: [{ name: "read_file", input: { path: "pic.png" } }] },
            { text: "Two grey squares." }
        );
        const run = await runNorth(
            ["-p", "compare @pic.png with pic.png", "--model", "g3", "--path", repo],
            {
                env,
            }
        );
        expect(run.code, run.stderr).toBe(0);
        expect(run.stdout).toBe("Two grey squares.\n");
        const data = png.toString("base64");
        expect(body(0).contents[0]!.parts).toContainEqual({
            inlineData: { mimeType: "image/png", data },
        });
        const results = body(1).contents[2]!.parts;
        expect(results[0]!.functionResponse?.name).toBe("read_file");
        expect(results).toContainEqual({ inlineData: { mimeType: "image/png", data } });
    });

    it("says which variable to set when GEMINI_API_KEY is missing", async () => {
        const { GEMINI_API_KEY: _unset, ...noKey } = env;
        const run = await runNorth(
            ["-p", "hi", "--model", "gemini:gemini-3-flash", "--path", repo],
            {
                env: noKey,
            }
        );
        expect(run.code).not.toBe(0);
        expect(run.stderr).toContain("GEMINI_API_KEY is not set");
        expect(fake.requests).toHaveLength(0);
    });
});

describe("the Gemini path behind a proxy", () => {
    let proxy: TestProxy;
    beforeAll(async () => {
        proxy = await startTestProxy();
    });
    afterAll(() => proxy.close());

    it("sends the request through HTTP_PROXY", async () => {
        fake.enqueue({ text: "via proxy" });
        const run = await runNorth(
            ["-p", "hi", "--model", "gemini:gemini-2.5-pro", "--path", repo],
            {
                env: { ...env, HTTP_PROXY: proxy.url, NO_PROXY: "" },
            }
        );
        expect(run.code, run.stderr).toBe(0);
        expect(run.stdout).toBe("via proxy\n");
        expect(proxy.seen).toContain(
            `POST ${fake.url}/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse`
        );
    });
});
