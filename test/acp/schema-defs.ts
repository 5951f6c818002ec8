/**
 * One definition of the ACP v1 JSON Schema shipped with the SDK North
 * depends on, as a check: what North builds for the editor must be valid
 * protocol data before any client reads it.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import Ajv2020 from "ajv/dist/2020";

const require = createRequire(import.meta.url);
const schema = JSON.parse(
    readFileSync(require.resolve("@agentclientprotocol/sdk/schema/v1/schema.json"), "utf8")
) as { $defs: Record<string, unknown> };

const ajv = new Ajv2020({ strict: false, allErrors: true, discriminator: true });
ajv.addFormat("uint16", {
    type: "number",
    validate: (n: number) => Number.isInteger(n) && n >= 0 && n <= 0xffff,
});
ajv.addFormat("uint32", {
    type: "number",
    validate: (n: number) => Number.isInteger(n) && n >= 0 && n <= 0xffffffff,
});
ajv.addFormat("uint64", {
    type: "number",
    validate: (n: number) => Number.isSafeInteger(n) && n >= 0,
});
ajv.addFormat("int64", { type: "number", validate: (n: number) => Number.isSafeInteger(n) });
ajv.addFormat("double", { type: "number", validate: (n: number) => Number.isFinite(n) });
ajv.addFormat("uri", (text: string) => /^[a-z][a-z0-9+.-]*:/i.test(text));
ajv.addSchema({ $id: "acp", $defs: schema.$defs });

/** The problems of `value` as the schema's `$defs/<name>` ([] when valid). */
export function schemaProblems(name: string, value: unknown): string[] {
    const validate = ajv.getSchema(`acp#/$defs/${name}`);
    if (!validate) throw new Error(`no $defs/${name} in the ACP schema`);
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ""}`);
}

/** Every value is valid as `$defs/<name>`; the failures name the value's index. */
export function invalidOf(name: string, values: readonly unknown[]): string[] {
    return values.flatMap((value, index) =>
        schemaProblems(name, value).map((problem) => `[${index}] ${problem}`)
    );
}
