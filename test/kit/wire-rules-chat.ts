/**
 * The 400 rules of the OpenAI Chat Completions API for the messages North
 * sends (from the API reference and the function-calling guide): tool
 * messages answer the assistant message right before them, every tool call is
 * answered before the conversation goes on. Messages follow the API's wording.
 */
import type { WireProblem } from "./wire-rules";

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json =>
    typeof value === "object" && value !== null && !Array.isArray(value);

const ROLES = ["system", "developer", "user", "assistant", "tool"];
const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

type Add = (rule: string, message: string) => void;

/** The problems the Chat Completions API would answer this request body with a 400 for. */
export function chatCompletionsProblems(body: unknown): WireProblem[] {
    const problems: WireProblem[] = [];
    const add: Add = (rule, message) => void problems.push({ rule, message });
    if (!isRecord(body)) {
        add("body", "request body must be a JSON object");
        return problems;
    }
    if (typeof body.model !== "string" || !body.model)
        add("body", "you must provide a model parameter");
    checkTools(body.tools, add);
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
        add("body", "[] is too short - 'messages'");
        return problems;
    }
    const messages = body.messages as unknown[];
    /** Ids of the open assistant message's tool calls not answered yet. */
    let pending: string[] = [];
    /** Ids the latest assistant message with tool calls asked for. */
    let asked = new Set<string>();
    messages.forEach((message, i) => {
        const at = `messages[${i}]`;
        if (!isRecord(message) || !ROLES.includes(String(message.role))) {
            add(
                "role",
                `Invalid value: '${String(isRecord(message) ? message.role : message)}'. Supported values are: ${ROLES.map((r) => `'${r}'`).join(", ")}. (${at}.role)`
            );
            return;
        }
        const role = String(message.role);
        if (role === "tool") {
            const id = String(message.tool_call_id);
            if (asked.size === 0) {
                add(
                    "tool-message-paired",
                    `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. (${at})`
                );
            } else if (!asked.has(id)) {
                add(
                    "tool-message-paired",
                    `Invalid parameter: 'tool_call_id' of '${id}' not found in 'tool_calls' of previous message. (${at})`
                );
            }
            pending = pending.filter((p) => p !== id);
            checkContent(message.content, at, role, add);
            return;
        }
        if (pending.length > 0) {
            add(
                "tool-calls-answered",
                `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(", ")}`
            );
        }
        pending = [];
        asked = new Set();
        if (role === "assistant") {
            const calls = Array.isArray(message.tool_calls)
                ? message.tool_calls.filter(isRecord)
                : [];
            if (message.content === null || message.content === undefined) {
                if (calls.length === 0)
                    add(
                        "assistant-content",
                        `Invalid value for 'content': expected a string, got null. (${at}.content)`
                    );
            } else {
                checkContent(message.content, at, role, add);
            }
            calls.forEach((call, j) => {
                const fn = isRecord(call.function) ? call.function : {};
                if (typeof call.id !== "string" || !call.id)
                    add("tool-call", `Missing required parameter: '${at}.tool_calls[${j}].id'.`);
                if (typeof fn.arguments !== "string")
                    add(
                        "tool-call",
                        `Missing required parameter: '${at}.tool_calls[${j}].function.arguments'.`
                    );
                if (typeof fn.name !== "string" || !fn.name)
                    add(
                        "tool-call",
                        `Missing required parameter: '${at}.tool_calls[${j}].function.name'.`
                    );
            });
            pending = calls.map((call) => String(call.id));
            asked = new Set(pending);
            return;
        }
        checkContent(message.content, at, role, add);
    });
    if (pending.length > 0) {
        add(
            "tool-calls-answered",
            `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(", ")}`
        );
    }
    return problems;
}

/** A string, or parts: text everywhere, images in user messages only. */
function checkContent(content: unknown, at: string, role: string, add: Add): void {
    if (typeof content === "string") return;
    if (!Array.isArray(content)) {
        add(
            "content",
            `Invalid type for '${at}.content': expected one of a string or array of objects.`
        );
        return;
    }
    content.forEach((part, j) => {
        const type = isRecord(part) ? String(part.type) : "none";
        const imagesAllowed = role === "user";
        if (type === "text") {
            if (!isRecord(part) || typeof part.text !== "string")
                add("content", `Missing required parameter: '${at}.content[${j}].text'.`);
        } else if (type === "image_url" && imagesAllowed) {
            const url = isRecord(part) && isRecord(part.image_url) ? part.image_url.url : undefined;
            if (
                typeof url !== "string" ||
                !/^(https?:\/\/|data:image\/(png|jpeg|webp|gif);base64,)/.test(url)
            ) {
                add(
                    "image-url",
                    `Invalid '${at}.content[${j}].image_url.url'. Expected a valid URL or a base64 data URL of an image.`
                );
            }
        } else {
            add(
                "content",
                `Invalid value: '${type}'. Supported values for ${role} content are: 'text'${imagesAllowed ? ", 'image_url'" : ""}. (${at}.content[${j}].type)`
            );
        }
    });
}

function checkTools(tools: unknown, add: Add): void {
    if (tools === undefined) return;
    if (!Array.isArray(tools))
        return add("tool-name", "Invalid type for 'tools': expected an array.");
    tools.forEach((tool, i) => {
        const fn = isRecord(tool) && isRecord(tool.function) ? tool.function : undefined;
        if (!fn || !FUNCTION_NAME.test(String(fn.name))) {
            add(
                "tool-name",
                `Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$' of at most 64 characters.`
            );
        }
    });
}
