/**
 * The 400 rules of the OpenAI Responses API for an input North sends (from
 * the API reference and the function-calling and reasoning guides): tool
 * outputs paired with their calls, reasoning items replayable without stored
 * state, input image shapes. Messages follow the API's wording.
 */
import { imageFacts, isBase64 } from "./wire-rules-image";
import type { WireProblem } from "./wire-rules";

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json =>
    typeof value === "object" && value !== null && !Array.isArray(value);

const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MIN_OUTPUT_TOKENS = 16;
const IMAGE_DATA_URL = /^data:(image\/(?:png|jpeg|webp|gif));base64,(.*)$/s;
const DETAILS = ["low", "high", "auto", "original"];
const INPUT_PARTS = new Set(["input_text", "input_image", "input_file"]);
const OUTPUT_PARTS = new Set(["output_text", "refusal"]);
/** Items the model produced that may follow its reasoning. */
const OUTPUT_ITEMS = new Set([
    "message",
    "function_call",
    "reasoning",
    "web_search_call",
    "custom_tool_call",
]);

type Add = (rule: string, message: string) => void;

/** The problems the Responses API would answer this request body with a 400 for. */
export function responsesProblems(body: unknown): WireProblem[] {
    const problems: WireProblem[] = [];
    const add: Add = (rule, message) => void problems.push({ rule, message });
    if (!isRecord(body)) {
        add("body", "request body must be a JSON object");
        return problems;
    }
    if (typeof body.model !== "string" || !body.model)
        add("body", "Missing required parameter: 'model'.");
    const maxOutput = body.max_output_tokens;
    if (
        maxOutput !== undefined &&
        (typeof maxOutput !== "number" || maxOutput < MIN_OUTPUT_TOKENS)
    ) {
        add(
            "body",
            `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= ${MIN_OUTPUT_TOKENS}.`
        );
    }
    checkTools(body.tools, add);
    if (typeof body.input === "string" || body.input === undefined) return problems;
    if (!Array.isArray(body.input)) {
        add("body", "Invalid type for 'input': expected a string or an array of input items.");
        return problems;
    }
    const items = body.input as unknown[];
    const stored = body.store !== false;
    const calls = new Set<string>();
    const answered = new Set<string>();
    items.forEach((item, i) => {
        const at = `input[${i}]`;
        if (!isRecord(item)) return add("item", `Invalid type for '${at}': expected an object.`);
        const type = item.type ?? (item.role !== undefined ? "message" : undefined);
        switch (type) {
            case "message":
                checkMessage(item, at, add);
                break;
            case "function_call":
                if (typeof item.call_id !== "string" || !item.call_id) {
                    add("function-call", `Missing required parameter: '${at}.call_id'.`);
                } else {
                    calls.add(item.call_id);
                }
                if (typeof item.arguments !== "string") {
                    add("function-call", `Invalid type for '${at}.arguments': expected a string.`);
                }
                break;
            case "function_call_output": {
                const id = String(item.call_id);
                if (!calls.has(id)) {
                    add(
                        "function-call-output-paired",
                        `No tool call found for function call output with call_id ${id}.`
                    );
                }
                answered.add(id);
                checkOutput(item.output, `${at}.output`, add);
                break;
            }
            case "reasoning":
                checkReasoning(item, items[i + 1], at, stored, add);
                break;
            default:
                break;
        }
    });
    for (const id of calls) {
        if (!answered.has(id))
            add("function-call-answered", `No tool output found for function call ${id}.`);
    }
    return problems;
}

function checkMessage(item: Json, at: string, add: Add): void {
    const role = item.role;
    if (!["user", "assistant", "system", "developer"].includes(String(role))) {
        add(
            "item",
            `Invalid value: '${String(role)}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`
        );
        return;
    }
    const content = item.content;
    if (typeof content === "string") return;
    if (!Array.isArray(content)) {
        add("item", `Invalid type for '${at}.content': expected a string or an array.`);
        return;
    }
    const allowed = role === "assistant" ? OUTPUT_PARTS : INPUT_PARTS;
    content.forEach((part, j) => {
        const type = isRecord(part) ? String(part.type) : "none";
        if (!allowed.has(type)) {
            add(
                "message-content",
                `Invalid value: '${type}'. Supported values for ${String(role)} content are: ${[...allowed].map((t) => `'${t}'`).join(", ")}. (${at}.content[${j}])`
            );
        } else if (type === "input_image" && isRecord(part)) {
            checkImage(part, `${at}.content[${j}]`, add);
        }
    });
}

function checkOutput(output: unknown, at: string, add: Add): void {
    if (typeof output === "string") return;
    if (!Array.isArray(output)) {
        add("function-call-output", `Invalid type for '${at}': expected a string or an array.`);
        return;
    }
    output.forEach((part, j) => {
        const type = isRecord(part) ? String(part.type) : "none";
        if (!INPUT_PARTS.has(type)) {
            add(
                "function-call-output",
                `Invalid value: '${type}'. Supported values are: 'input_text', 'input_image', and 'input_file'. (${at}[${j}])`
            );
        } else if (type === "input_image" && isRecord(part)) {
            checkImage(part, `${at}[${j}]`, add);
        }
    });
}

/**
 * A stateless request (`store: false`) can only resolve a reasoning item from
 * its encrypted content, and a reasoning item comes with the output item it
 * led to right after it.
 */
function checkReasoning(item: Json, next: unknown, at: string, stored: boolean, add: Add): void {
    const id = String(item.id);
    if (!Array.isArray(item.summary))
        add("reasoning", `Missing required parameter: '${at}.summary'.`);
    if (typeof item.encrypted_content !== "string" || !item.encrypted_content) {
        // The fake keeps no items, so even with `store` the id resolves to nothing.
        add(
            "reasoning-encrypted",
            stored
                ? `Item with id '${id}' not found.`
                : `Item with id '${id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`
        );
    }
    const nextType = isRecord(next)
        ? (next.type ?? (next.role === "assistant" ? "message" : "user"))
        : undefined;
    const followed =
        isRecord(next) &&
        OUTPUT_ITEMS.has(String(nextType)) &&
        (nextType !== "message" || next.role === "assistant");
    if (!followed) {
        add(
            "reasoning-followed",
            `Item '${id}' of type 'reasoning' was provided without its required following item.`
        );
    }
}

function checkImage(part: Json, at: string, add: Add): void {
    if (part.detail !== undefined && !DETAILS.includes(String(part.detail))) {
        add(
            "input-image",
            `Invalid value: '${String(part.detail)}'. Supported values are: ${DETAILS.map((d) => `'${d}'`).join(", ")}. (${at}.detail)`
        );
    }
    if (typeof part.file_id === "string") return;
    const url = part.image_url;
    if (typeof url !== "string" || !url) {
        add("input-image", `Missing required parameter: '${at}.image_url'.`);
        return;
    }
    if (/^https?:\/\//.test(url)) return;
    const data = IMAGE_DATA_URL.exec(url);
    if (!data || !isBase64(data[2] ?? "") || !data[2]) {
        add(
            "input-image",
            `Invalid '${at}.image_url'. Expected a valid URL or a base64-encoded data URL of a PNG, JPEG, WEBP or GIF image.`
        );
        return;
    }
    if (imageFacts(data[2]).format !== data[1]) {
        add(
            "input-image",
            `Invalid '${at}.image_url'. The image data is not a valid ${String(data[1])} image.`
        );
    }
}

function checkTools(tools: unknown, add: Add): void {
    if (tools === undefined) return;
    if (!Array.isArray(tools))
        return add("tool-name", "Invalid type for 'tools': expected an array.");
    const names = new Set<string>();
    tools.forEach((tool, i) => {
        if (!isRecord(tool) || tool.type !== "function") return;
        const name = String(tool.name);
        if (!FUNCTION_NAME.test(name)) {
            add(
                "tool-name",
                `Invalid 'tools[${i}].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$' of at most 64 characters.`
            );
        }
        if (names.has(name))
            add("tool-name-unique", `Duplicate value for 'tools[${i}].name': ${name}.`);
        names.add(name);
    });
}
