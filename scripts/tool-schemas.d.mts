/** name → input JSON Schema, derived at build time as the registry derives it at run time. */
export declare function builtinToolSchemas(): Promise<Record<string, Record<string, unknown>>>;
