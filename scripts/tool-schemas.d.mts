/** name → input JSON Schema, derived at build time as the registry derives it at run time. */
export declare function builtinToolSchemas(): Promise<Record<string, Record<string, unknown>>>;
/** The zod members North uses at run time (`ZOD_MEMBERS`, src/util/zod-runtime.ts). */
export declare function runtimeZodMembers(): Promise<readonly string[]>;
/** The JSON Schema of a user settings file with nothing to report (src/storage/settings/schema.ts). */
export declare function userSettingsJsonSchema(): Promise<Record<string, unknown>>;
