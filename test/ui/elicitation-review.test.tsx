import { EventEmitter } from "node:events";
import { stripVTControlCharacters } from "node:util";
import { render } from "ink";
import { act } from "react";
import type { ReactElement } from "react";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { McpElicitation, McpElicitationAnswer } from "../../src/tools/mcp/client-requests";
import { createKeyGate } from "../../src/ui/input/key-gate";
import { ElicitationReview } from "../../src/ui/reviews/elicitation-review";
import { SamplingReview } from "../../src/ui/reviews/sampling-review";

class FakeStdout extends EventEmitter {
    columns = 100;
    rows = 40;
    isTTY = true;
    frames: string[] = [];
    write(data: string): boolean {
        this.frames.push(data);
        return true;
    }
}

class FakeStdin extends EventEmitter {
    isTTY = true;
    private pending: string[] = [];
    setEncoding(): void {}
    setRawMode(): void {}
    resume(): void {}
    pause(): void {}
    ref(): void {}
    unref(): void {}
    read(): string | null {
        return this.pending.shift() ?? null;
    }
    send(data: string): void {
        this.pending.push(data);
        this.emit("readable");
    }
}

const actGlobal = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean };
beforeAll(() => {
    actGlobal.IS_REACT_ACT_ENVIRONMENT = true;
});
afterAll(() => {
    delete actGlobal.IS_REACT_ACT_ENVIRONMENT;
});
const unmounts: Array<() => void> = [];
afterEach(() => {
    for (const unmount of unmounts.splice(0)) unmount();
});

/** Ink holds a lone Esc for a turn, in case it starts a sequence. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function mount(node: ReactElement) {
    const stdout = new FakeStdout();
    const stdin = new FakeStdin();
    let instance: ReturnType<typeof render> | undefined;
    act(() => {
        instance = render(node, {
            stdout: stdout as unknown as NodeJS.WriteStream,
            stderr: new FakeStdout() as unknown as NodeJS.WriteStream,
            stdin: stdin as unknown as NodeJS.ReadStream,
            debug: true,
            exitOnCtrlC: false,
            patchConsole: false,
        });
    });
    unmounts.push(() => act(() => instance?.unmount()));
    return {
        frame: () => stripVTControlCharacters(stdout.frames.at(-1) ?? ""),
        async press(keys: string) {
            await act(async () => {
                stdin.send(keys);
                if (keys === "\u001b") await nextTurn();
            });
        },
    };
}

const FORM: McpElicitation = {
    server: "deploy",
    message: "Set up the deploy",
    requestedSchema: {
        type: "object",
        properties: {
            name: { type: "string", title: "Name" },
            replicas: { type: "integer", minimum: 1, default: 2 },
            region: {
                type: "string",
                oneOf: [
                    { const: "eu", title: "Europe" },
                    { const: "us", title: "America" },
                ],
                default: "eu",
            },
            dryRun: { type: "boolean", default: true },
            email: { type: "string", format: "email" },
        },
        required: ["name", "replicas"],
    },
};

describe("the elicitation form", () => {
    it("prefills defaults, shows a wrong field's reason in place and sends typed values", async () => {
        const answers: McpElicitationAnswer[] = [];
        const r = mount(
            <ElicitationReview
                request={FORM}
                width={80}
                active
                onAnswer={(a) => void answers.push(a)}
            />
        );
        expect(r.frame()).toContain("Set up the deploy");
        expect(r.frame()).toContain("Name *:");
        expect(r.frame()).toContain("replicas *: 2");
        expect(r.frame()).toContain("‹ Europe ›");
        expect(r.frame()).toContain("[x] yes");
        // One chunk, handled key by key: a name, replicas 2 → 0, the other region, dry run off.
        await r.press("web\u001b[B\x7f0\u001b[B\u001b[C\u001b[B \r");
        expect(answers).toEqual([]);
        expect(r.frame()).toContain("✗ at least 1");
        await r.press("\x7f3\u001b[B\u001b[B\u001b[Bnot-an-email\r");
        expect(answers).toEqual([]);
        expect(r.frame()).toContain("✗ not a valid email");
        for (let i = 0; i < "not-an-email".length; i++) await r.press("\x7f");
        await r.press("a@b.io\r");
        expect(answers).toEqual([
            {
                action: "accept",
                content: { name: "web", replicas: 3, region: "us", dryRun: false, email: "a@b.io" },
            },
        ]);
    });

    it("declines with Esc and ignores keys the composer owns", async () => {
        const answers: McpElicitationAnswer[] = [];
        let owned = false;
        const r = mount(
            <ElicitationReview
                request={FORM}
                width={80}
                active
                gate={{ ...createKeyGate(), owner: () => (owned ? "review" : "composer") }}
                onAnswer={(a) => void answers.push(a)}
            />
        );
        await r.press("xyz");
        expect(r.frame()).toContain("Name *: ");
        expect(r.frame()).not.toContain("xyz");
        owned = true;
        await r.press("\u001b");
        expect(answers).toEqual([{ action: "decline" }]);
    });
});

describe("the sampling review", () => {
    it("shows the request and approves with 1, denies with Esc; letters do nothing", async () => {
        const decisions: boolean[] = [];
        const request = {
            server: "notes",
            systemPrompt: "Be brief",
            messages: [{ role: "user" as const, text: "Summarise\nthe notes" }],
            maxTokens: 4096,
            requestedMaxTokens: 1_000_000_000,
        };
        const r = mount(
            <SamplingReview
                request={request}
                width={80}
                active
                onDecide={(d) => void decisions.push(d)}
            />
        );
        expect(r.frame()).toContain("MCP server notes asks to use the model");
        expect(r.frame()).toContain("system: Be brief");
        expect(r.frame()).toContain("user: Summarise");
        expect(r.frame()).toContain("up to 4096 tokens (it asked for 1000000000)");
        // a approved here once: now no letter answers, only the menu.
        await r.press("a");
        await r.press("d");
        expect(decisions).toEqual([]);
        await r.press("1");
        await r.press("\u001b");
        expect(decisions).toEqual([true, false]);
    });
});
