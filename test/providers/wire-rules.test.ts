/**
 * The fakes' 400 rules: for each rule a body the real API takes and one it
 * refuses, and North's own request bodies pass them.
 */
import { describe, expect, it } from "vitest";

import { buildAnthropicParams } from "../../src/providers/anthropic";
import type { StreamRequest } from "../../src/providers/types";
import { startFakeLlmServer } from "../kit/fake-llm-server";
import { encodeJpeg, encodePng } from "../kit/image-pixels";
import {
    anthropicMessagesProblems,
    chatCompletionsProblems,
    responsesProblems,
    wireProblemMessage,
} from "../kit/wire-rules";
import { imageFacts } from "../kit/wire-rules-image";

type Json = Record<string, unknown>;

const rulesOf = (problems: Array<{ rule: string }>): string[] => problems.map((p) => p.rule);

const PNG = encodePng(4, 3).toString("base64");
const JPEG = encodeJpeg(5, 2).toString("base64");
/** A PNG whose base64 is over 5 MB (trailing bytes after its end). */
const OVERSIZED_PNG = Buffer.concat([encodePng(4, 3), Buffer.alloc(4 * 1024 * 1024)]).toString(
    "base64"
);

// ---------------------------------------------------------------- Anthropic

const user = (content: unknown): Json => ({ role: "user", content });
const assistant = (content: unknown): Json => ({ role: "assistant", content });
const toolUse = (id: string): Json => ({ type: "tool_use", id, name: "read_file", input: {} });
const toolResult = (id: string): Json => ({ type: "tool_result", tool_use_id: id, content: "ok" });
const text = (t: string): Json => ({ type: "text", text: t });
const thinking = (signature = "sig"): Json => ({ type: "thinking", thinking: "hmm", signature });
const image = (media_type: string, data: string): Json => ({
    type: "image",
    source: { type: "base64", media_type, data },
});

function messagesBody(messages: Json[], extra: Json = {}): Json {
    return { model: "claude-test", max_tokens: 2048, stream: true, messages, ...extra };
}

const loop = (first: Json[] = [toolUse("toolu_1")]): Json[] => [
    user("read it"),
    assistant(first),
    user([toolResult("toolu_1")]),
];

const THINKING = { thinking: { type: "enabled", budget_tokens: 1024 } };

/** [rule, a body the API takes, a body it refuses for that rule] */
const ANTHROPIC_CASES: Array<[string, Json, unknown]> = [
    ["body", messagesBody([user("hi")]), { model: "m", messages: [user("hi")] }],
    ["role", messagesBody([user("hi")]), messagesBody([{ role: "system", content: "hi" }])],
    ["first-user", messagesBody([user("hi"), assistant("yo")]), messagesBody([assistant("yo")])],
    [
        "empty-content",
        messagesBody([user("hi"), assistant([])]),
        messagesBody([user("hi"), assistant([]), user("again")]),
    ],
    [
        "trailing-whitespace",
        messagesBody([user("hi"), assistant("Sure,")]),
        messagesBody([user("hi"), assistant("Sure, ")]),
    ],
    ["block-role", messagesBody(loop()), messagesBody([user([toolUse("toolu_1")])])],
    ["empty-text", messagesBody([user([text("hi")])]), messagesBody([user([text(" \n")])])],
    [
        "thinking-signed",
        messagesBody([user("hi"), assistant([thinking(), text("a")]), user("b")]),
        messagesBody([user("hi"), assistant([thinking(""), text("a")]), user("b")]),
    ],
    [
        "tool-use-id",
        messagesBody(loop()),
        messagesBody([user("x"), assistant([toolUse("call.1")]), user([toolResult("call.1")])]),
    ],
    [
        "tool-use-input",
        messagesBody(loop()),
        messagesBody(loop([{ ...toolUse("toolu_1"), input: "{}" }])),
    ],
    [
        "tool-result-content",
        messagesBody([
            user("x"),
            assistant([toolUse("toolu_1")]),
            user([{ ...toolResult("toolu_1"), content: [text("a"), image("image/png", PNG)] }]),
        ]),
        messagesBody([
            user("x"),
            assistant([toolUse("toolu_1")]),
            user([{ ...toolResult("toolu_1"), content: [toolUse("toolu_2")] }]),
        ]),
    ],
    [
        "tool-use-id-unique",
        messagesBody(loop()),
        messagesBody([...loop(), assistant([toolUse("toolu_1")]), user([toolResult("toolu_1")])]),
    ],
    [
        "tool-use-answered",
        messagesBody(loop()),
        messagesBody([user("x"), assistant([toolUse("toolu_1")]), user("go on")]),
    ],
    [
        "tool-result-paired",
        messagesBody(loop()),
        messagesBody([user("x"), assistant("sure"), user([toolResult("toolu_9")])]),
    ],
    [
        // Consecutive user messages join into one turn: the results must still come first.
        "tool-result-first",
        messagesBody([...loop(), user("and then")]),
        messagesBody([
            user("x"),
            assistant([toolUse("toolu_1")]),
            user([text("here:"), toolResult("toolu_1")]),
        ]),
    ],
    [
        "thinking-budget",
        messagesBody([user("hi")], THINKING),
        messagesBody([user("hi")], { thinking: { type: "enabled", budget_tokens: 4096 } }),
    ],
    [
        "thinking-sampling",
        messagesBody([user("hi")], { ...THINKING, temperature: 1 }),
        messagesBody([user("hi")], { ...THINKING, temperature: 0.2 }),
    ],
    [
        "thinking-tool-choice",
        messagesBody([user("hi")], { ...THINKING, tool_choice: { type: "auto" } }),
        messagesBody([user("hi")], { ...THINKING, tool_choice: { type: "any" } }),
    ],
    [
        "thinking-first",
        messagesBody(loop([thinking(), toolUse("toolu_1")]), THINKING),
        messagesBody(loop([text("let me look"), toolUse("toolu_1")]), THINKING),
    ],
    [
        "image-count",
        messagesBody([user(Array.from({ length: 100 }, () => image("image/png", PNG)))]),
        messagesBody([user(Array.from({ length: 101 }, () => image("image/png", PNG)))]),
    ],
    [
        "image-source",
        messagesBody([user([{ type: "image", source: { type: "url", url: "https://x/a.png" } }])]),
        messagesBody([user([{ type: "image", source: { type: "file", file_id: "f" } }])]),
    ],
    [
        "image-media-type",
        messagesBody([user([image("image/jpeg", JPEG)])]),
        messagesBody([user([image("image/png", JPEG)])]),
    ],
    [
        "image-data",
        messagesBody([user([image("image/png", PNG)])]),
        messagesBody([user([image("image/png", "not base64!")])]),
    ],
    [
        "image-size",
        messagesBody([user([image("image/png", PNG)])]),
        messagesBody([user([image("image/png", OVERSIZED_PNG)])]),
    ],
    [
        "image-dimensions",
        messagesBody([user([image("image/png", encodePng(2000, 1).toString("base64"))])]),
        messagesBody([
            user(
                Array.from({ length: 21 }, () =>
                    image("image/png", encodePng(2001, 1).toString("base64"))
                )
            ),
        ]),
    ],
    [
        "cache-control",
        messagesBody([user([{ ...text("a"), cache_control: { type: "ephemeral" } }])], {
            system: [{ ...text("s"), cache_control: { type: "ephemeral" } }],
        }),
        messagesBody(
            [
                user(
                    Array.from({ length: 4 }, () => ({
                        ...text("a"),
                        cache_control: { type: "ephemeral" },
                    }))
                ),
            ],
            { system: [{ ...text("s"), cache_control: { type: "ephemeral" } }] }
        ),
    ],
    [
        "tool-name",
        messagesBody([user("x")], {
            tools: [{ name: "mcp__srv__do-it", input_schema: { type: "object" } }],
        }),
        messagesBody([user("x")], { tools: [{ name: "do it", input_schema: { type: "object" } }] }),
    ],
    [
        "tool-name-unique",
        messagesBody([user("x")], {
            tools: [
                { name: "a", input_schema: { type: "object" } },
                { name: "b", input_schema: { type: "object" } },
            ],
        }),
        messagesBody([user("x")], {
            tools: [
                { name: "a", input_schema: { type: "object" } },
                { name: "a", input_schema: { type: "object" } },
            ],
        }),
    ],
    [
        "tool-schema",
        messagesBody([user("x")], {
            tools: [{ type: "web_search_20250305", name: "web_search", max_uses: 3 }],
        }),
        messagesBody([user("x")], { tools: [{ name: "a", input_schema: { type: "array" } }] }),
    ],
];

describe("Anthropic Messages rules", () => {
    it.each(ANTHROPIC_CASES)("%s: takes the good body, refuses the bad one", (rule, good, bad) => {
        expect(anthropicMessagesProblems(good)).toEqual([]);
        expect(rulesOf(anthropicMessagesProblems(bad))).toContain(rule);
    });

    it("takes North's own body for a thinking tool loop with a tool's image", () => {
        const request: StreamRequest = {
            apiModelId: "claude-test",
            system: "You are North.",
            tools: [{ name: "read_file", description: "Reads", inputSchema: { type: "object" } }],
            maxOutputTokens: 8192,
            thinking: { budgetTokens: 4096 },
            messages: [
                { role: "user", content: "look at the logo" },
                {
                    role: "assistant",
                    content: [
                        { type: "thinking", thinking: "read it", signature: "sig" },
                        {
                            type: "tool_call",
                            id: "toolu_1",
                            name: "read_file",
                            input: { path: "a.png" },
                            rawInput: '{"path":"a.png"}',
                        },
                    ],
                },
                {
                    role: "user",
                    content: [
                        {
                            type: "tool_result",
                            toolCallId: "toolu_1",
                            content: "a.png",
                            isError: false,
                            images: [
                                {
                                    type: "image",
                                    mediaType: "image/png",
                                    data: PNG,
                                    name: "a.png",
                                    bytes: 70,
                                },
                            ],
                        },
                    ],
                },
            ],
        };
        expect(anthropicMessagesProblems(buildAnthropicParams(request))).toEqual([]);
    });

    it("holds Bedrock and Vertex AI bodies to their version field and the model in the URL", () => {
        const { model: _model, stream: _stream, ...hosted } = messagesBody(loop());
        expect(
            anthropicMessagesProblems(
                { ...hosted, anthropic_version: "bedrock-2023-05-31" },
                "bedrock"
            )
        ).toEqual([]);
        expect(
            anthropicMessagesProblems(
                { ...hosted, anthropic_version: "vertex-2023-10-16" },
                "vertex"
            )
        ).toEqual([]);
        expect(rulesOf(anthropicMessagesProblems(hosted, "vertex"))).toEqual(["body"]);
        const withModel = { ...hosted, model: "m", anthropic_version: "bedrock-2023-05-31" };
        expect(anthropicMessagesProblems(withModel, "bedrock")[0]?.message).toBe(
            "extraneous key [model] is not permitted"
        );
        expect(
            anthropicMessagesProblems(
                { ...hosted, stream: true, anthropic_version: "bedrock-2023-05-31" },
                "bedrock"
            )[0]?.message
        ).toBe("extraneous key [stream] is not permitted");
        expect(
            anthropicMessagesProblems(
                { ...hosted, model: "m", anthropic_version: "vertex-2023-10-16" },
                "vertex"
            )[0]?.message
        ).toBe("model: Extra inputs are not permitted");
        // The conversation rules hold wherever the body goes.
        const unanswered = [user("x"), assistant([toolUse("toolu_1")]), user("go on")];
        const bedrock = {
            max_tokens: 10,
            messages: unanswered,
            anthropic_version: "bedrock-2023-05-31",
        };
        expect(rulesOf(anthropicMessagesProblems(bedrock, "bedrock"))).toEqual([
            "tool-use-answered",
        ]);
    });

    it("names the rule in the message of the 400", () => {
        const problems = anthropicMessagesProblems(
            messagesBody([user("x"), assistant([toolUse("toolu_7")]), user("go on")])
        );
        expect(wireProblemMessage(problems)).toMatch(
            /without `tool_result` blocks immediately after: toolu_7.*\(wire rule: tool-use-answered\)/
        );
    });
});

// ---------------------------------------------------------------- Responses

const call = (id: string): Json => ({
    type: "function_call",
    call_id: id,
    name: "f",
    arguments: "{}",
});
const output = (id: string, out: unknown = "ok"): Json => ({
    type: "function_call_output",
    call_id: id,
    output: out,
});
const reasoning = (encrypted?: string): Json => ({
    type: "reasoning",
    id: "rs_1",
    summary: [],
    ...(encrypted ? { encrypted_content: encrypted } : {}),
});
const said = (t: string): Json => ({
    type: "message",
    role: "assistant",
    content: [{ type: "output_text", text: t, annotations: [] }],
});
const asks = (content: unknown): Json => ({ role: "user", content });
const inputImage = (url: string, detail = "auto"): Json => ({
    type: "input_image",
    image_url: url,
    detail,
});

function responsesBody(input: unknown, extra: Json = {}): Json {
    return {
        model: "gpt-test",
        input,
        stream: true,
        store: false,
        max_output_tokens: 1000,
        ...extra,
    };
}

const RESPONSES_CASES: Array<[string, Json, unknown]> = [
    ["body", responsesBody("hi"), responsesBody("hi", { max_output_tokens: 8 })],
    [
        "function-call-output-paired",
        responsesBody([asks("x"), call("c1"), output("c1")]),
        responsesBody([asks("x"), output("c1"), call("c1")]),
    ],
    [
        "function-call-answered",
        responsesBody([asks("x"), call("c1"), output("c1"), asks("more")]),
        responsesBody([asks("x"), call("c1"), asks("more")]),
    ],
    [
        "function-call-output",
        responsesBody([asks("x"), call("c1"), output("c1", [{ type: "input_text", text: "a" }])]),
        responsesBody([asks("x"), call("c1"), output("c1", [{ type: "output_text", text: "a" }])]),
    ],
    [
        "reasoning-encrypted",
        responsesBody([asks("x"), reasoning("enc"), said("a")]),
        responsesBody([asks("x"), reasoning(), said("a")]),
    ],
    [
        "reasoning-followed",
        responsesBody([asks("x"), reasoning("enc"), call("c1"), output("c1")]),
        responsesBody([asks("x"), reasoning("enc"), asks("again")]),
    ],
    [
        "message-content",
        responsesBody([asks([{ type: "input_text", text: "x" }]), said("a")]),
        responsesBody([asks([{ type: "output_text", text: "x" }])]),
    ],
    [
        "input-image",
        responsesBody([asks([inputImage(`data:image/png;base64,${PNG}`)])]),
        responsesBody([asks([inputImage(`data:image/jpeg;base64,${PNG}`)])]),
    ],
    [
        "tool-name",
        responsesBody("x", { tools: [{ type: "function", name: "read_file", parameters: {} }] }),
        responsesBody("x", { tools: [{ type: "function", name: "read file", parameters: {} }] }),
    ],
];

describe("OpenAI Responses rules", () => {
    it.each(RESPONSES_CASES)("%s: takes the good body, refuses the bad one", (rule, good, bad) => {
        expect(responsesProblems(good)).toEqual([]);
        expect(rulesOf(responsesProblems(bad))).toContain(rule);
    });

    it("refuses an image detail the API does not know and an image without a URL", () => {
        const bad = responsesBody([
            asks([inputImage("https://x/a.png", "ultra"), { type: "input_image" }]),
        ]);
        expect(rulesOf(responsesProblems(bad))).toEqual(["input-image", "input-image"]);
    });
});

// ---------------------------------------------------------------- Chat Completions

const chatCall = (id: string): Json => ({
    id,
    type: "function",
    function: { name: "f", arguments: "{}" },
});
const tool = (id: string): Json => ({ role: "tool", tool_call_id: id, content: "ok" });

function chatBody(messages: unknown, extra: Json = {}): Json {
    return { model: "local", stream: true, messages, ...extra };
}

const CHAT_CASES: Array<[string, Json, unknown]> = [
    ["body", chatBody([asks("hi")]), chatBody([])],
    [
        "role",
        chatBody([{ role: "developer", content: "be brief" }, asks("hi")]),
        chatBody([{ role: "robot", content: "x" }]),
    ],
    [
        "tool-message-paired",
        chatBody([
            asks("x"),
            { role: "assistant", content: null, tool_calls: [chatCall("c1")] },
            tool("c1"),
        ]),
        chatBody([asks("x"), { role: "assistant", content: "hi" }, tool("c1")]),
    ],
    [
        "tool-calls-answered",
        chatBody([
            asks("x"),
            { role: "assistant", content: null, tool_calls: [chatCall("c1"), chatCall("c2")] },
            tool("c2"),
            tool("c1"),
            asks("more"),
        ]),
        chatBody([
            asks("x"),
            { role: "assistant", content: null, tool_calls: [chatCall("c1"), chatCall("c2")] },
            tool("c1"),
            asks("more"),
        ]),
    ],
    [
        "assistant-content",
        chatBody([asks("x"), { role: "assistant", content: "" }]),
        chatBody([asks("x"), { role: "assistant", content: null }]),
    ],
    [
        "tool-call",
        chatBody([
            asks("x"),
            { role: "assistant", content: null, tool_calls: [chatCall("c1")] },
            tool("c1"),
        ]),
        chatBody([
            asks("x"),
            {
                role: "assistant",
                content: null,
                tool_calls: [{ id: "c1", type: "function", function: { name: "f" } }],
            },
            tool("c1"),
        ]),
    ],
    [
        "image-url",
        chatBody([
            asks([{ type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } }]),
        ]),
        chatBody([asks([{ type: "image_url", image_url: { url: "a.png" } }])]),
    ],
    [
        "content",
        chatBody([asks([{ type: "text", text: "x" }])]),
        chatBody([
            asks("x"),
            {
                role: "assistant",
                content: [{ type: "image_url", image_url: { url: "https://x" } }],
            },
        ]),
    ],
    [
        "tool-name",
        chatBody([asks("x")], { tools: [{ type: "function", function: { name: "read_file" } }] }),
        chatBody([asks("x")], { tools: [{ type: "function", function: { name: "read.file" } }] }),
    ],
];

describe("OpenAI Chat Completions rules", () => {
    it.each(CHAT_CASES)("%s: takes the good body, refuses the bad one", (rule, good, bad) => {
        expect(chatCompletionsProblems(good)).toEqual([]);
        expect(rulesOf(chatCompletionsProblems(bad))).toContain(rule);
    });
});

describe("image facts", () => {
    it("reads the format and pixel size of PNG and JPEG headers", () => {
        expect(imageFacts(PNG)).toMatchObject({ format: "image/png", width: 4, height: 3 });
        expect(imageFacts(JPEG)).toMatchObject({ format: "image/jpeg", width: 5, height: 2 });
        expect(imageFacts(Buffer.from("hello").toString("base64")).format).toBeUndefined();
    });
});

describe("the fake server", () => {
    const post = (url: string, body: unknown): Promise<Response> =>
        fetch(url, {
            method: "POST",
            headers: {
                "content-type": "application/json",
                "x-api-key": "sk-test",
                "anthropic-version": "2023-06-01",
            },
            body: JSON.stringify(body),
        });

    it("answers a request that breaks a rule 400 in each API's error shape, keeping its turn", async () => {
        const server = await startFakeLlmServer({ turns: [{ text: "never sent" }] });
        try {
            const messages = await post(
                `${server.url}/v1/messages`,
                messagesBody([user("x"), assistant([toolUse("toolu_1")]), user("go on")])
            );
            expect(messages.status).toBe(400);
            expect(await messages.json()).toEqual({
                type: "error",
                error: {
                    type: "invalid_request_error",
                    message: expect.stringContaining("(wire rule: tool-use-answered)"),
                },
            });
            const responses = await post(
                `${server.openaiBaseUrl}/responses`,
                responsesBody([asks("x"), output("c1")])
            );
            expect(responses.status).toBe(400);
            expect(await responses.json()).toMatchObject({
                error: {
                    type: "invalid_request_error",
                    message: expect.stringContaining("No tool call found"),
                },
            });
            const chat = await post(
                `${server.openaiBaseUrl}/chat/completions`,
                chatBody([tool("c1")])
            );
            expect(chat.status).toBe(400);
            expect(await chat.json()).toMatchObject({
                error: {
                    type: "invalid_request_error",
                    message: expect.stringContaining("'tool'"),
                },
            });
            expect(server.remaining()).toBe(1);
        } finally {
            await server.close();
        }
    });
});
