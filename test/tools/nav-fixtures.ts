/**
 * Small realistic sources for the navigation tool tests, and a temp-repo helper.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ToolContext, ToolResult } from "../../src/tools/types";
import { type ToolInput, inputSchema } from "../../src/tools/tool-input";

export interface TempRepo {
    root: string;
    ctx: ToolContext;
    write(rel: string, content: string | Buffer): string;
    dispose(): void;
}

export function makeRepo(prefix = "north-nav-"): TempRepo {
    const root = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
    return {
        root,
        ctx: { repoRoot: root, signal: new AbortController().signal },
        write(rel, content) {
            const abs = path.join(root, rel);
            mkdirSync(path.dirname(abs), { recursive: true });
            writeFileSync(abs, content);
            return rel;
        },
        dispose() {
            rmSync(root, { recursive: true, force: true });
        },
    };
}

/** The data of an ok result (fails the test otherwise). */
export function ok<D>(result: ToolResult<D>): D {
    if (!result.ok)
        throw new Error(`expected ok, got ${result.error.code}: ${result.error.message}`);
    return result.data;
}

/** The error of a failed result (fails the test otherwise). */
export function err<D>(result: ToolResult<D>): { code: string; message: string } {
    if (result.ok)
        throw new Error(`expected an error, got ${JSON.stringify(result.data).slice(0, 300)}`);
    return result.error;
}

export const TS_SOURCE = `import { EventEmitter } from "node:events";
import type { Logger } from "./logger";
import {
    parseConfig,
    type Config,
} from "./config";

/** Options for the server. */
export interface ServerOptions {
    port: number;
    host?: string;
}

export type Handler = (req: Request) => Promise<Response>;

export enum State {
    Idle,
    Running,
}

const BANNER = \`server \${"{"} started }\`;
const ROUTE = /^\\/api\\/[{}]+/;

export class HttpServer extends EventEmitter {
    private handlers = new Map<string, Handler>();

    constructor(private readonly options: ServerOptions) {
        super();
    }

    async start(): Promise<void> {
        if (this.options.port < 0) {
            throw new Error("bad port: }");
        }
        this.emit("started", BANNER);
    }

    route(path: string, handler: Handler): void {
        this.handlers.set(path, handler);
    }

    handle = async (req: Request): Promise<Response> => {
        const handler = this.handlers.get(new URL(req.url).pathname);
        return handler ? handler(req) : new Response("not found", { status: 404 });
    };
}

export function createServer(
    options: ServerOptions,
    logger?: Logger
): HttpServer {
    function log(message: string) {
        logger?.info(message);
    }
    log("creating server");
    return new HttpServer(options);
}

export const isRoute = (value: string): boolean => ROUTE.test(value);

export default HttpServer;
export { parseConfig };
`;

export const PY_SOURCE = `import os
import sys
from typing import (
    Any,
    Optional,
)

MAX_RETRIES = 3


class Repository:
    """Stores records.

Dedented docstring line that must not end the class.
    """

    def __init__(self, path: str) -> None:
        self.path = path

    @property
    def size(self) -> int:
        return len(os.listdir(self.path))

    async def fetch(
        self,
        key: str,
    ) -> Optional[Any]:
        def inner():
            return key
        return inner()


def main(argv: list[str]) -> int:
    repo = Repository(argv[0])
    if repo.size > MAX_RETRIES:
        print("large repository")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
`;

export const GO_SOURCE = `package server

import (
	"fmt"
	"net/http"
)

const DefaultPort = 8080

type Server struct {
	Port int
}

type Handler interface {
	Serve(w http.ResponseWriter, r *http.Request)
}

func NewServer(port int) *Server {
	return &Server{Port: port}
}

func (s *Server) Start() error {
	msg := fmt.Sprintf("listening on %d {", s.Port)
	fmt.Println(msg)
	return nil
}
`;

export const RUST_SOURCE = `use std::collections::HashMap;
use std::fmt;

pub const MAX: usize = 10;

#[derive(Debug)]
pub struct Point<T> {
    x: T,
    y: T,
}

pub enum Shape {
    Circle(f64),
    Square(f64),
}

pub trait Area {
    fn area(&self) -> f64;
}

impl<T: fmt::Display> fmt::Display for Point<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let brace = '{';
        write!(f, "({}, {}) {}", self.x, self.y, brace)
    }
}

pub fn count_words(text: &str) -> HashMap<&str, usize> {
    let mut counts = HashMap::new();
    for word in text.split_whitespace() {
        *counts.entry(word).or_insert(0) += 1;
    }
    counts
}
`;

export const JAVA_SOURCE = `package com.example.shop;

import java.util.List;
import java.util.ArrayList;

public class Cart {
    private final List<String> items = new ArrayList<>();

    public Cart() {
    }

    @Override
    public String toString() {
        return "Cart{" + items + "}";
    }

    public void add(String item) {
        if (item != null) {
            items.add(item);
        }
    }

    public static <T> List<T> copy(List<T> source) {
        return new ArrayList<>(source);
    }

    enum Status { OPEN, CLOSED }
}
`;

export const CSHARP_SOURCE = `using System;
using System.Collections.Generic;

namespace Shop.Orders
{
    public interface IOrderService
    {
        Order Find(int id);
    }

    public class OrderService : IOrderService
    {
        private readonly Dictionary<int, Order> _orders = new();

        public int Count { get; private set; }

        public OrderService()
        {
        }

        public Order Find(int id)
        {
            return _orders.TryGetValue(id, out var order) ? order : null;
        }

        public async Task<bool> SaveAsync(Order order)
        {
            var text = @"verbatim { brace";
            return await Task.FromResult(true);
        }
    }

    public record Order(int Id, string Name);
}
`;

export const PHP_SOURCE = `<?php

namespace App\\Http;

use App\\Models\\User;

interface Renderable
{
    public function render(): string;
}

class UserController implements Renderable
{
    private array $users = [];

    public function __construct(array $users)
    {
        $this->users = $users;
    }

    public function render(): string
    {
        # a hash comment with a brace {
        return implode(", ", $this->users);
    }
}

function helper(string $name): string
{
    return "Hello {$name}";
}
`;

export const CSS_SOURCE = `/* Site styles { not a rule } */
:root {
    --brand: #0af;
}

.card,
.card--wide {
    padding: 1rem;
    background: url("data:image/svg+xml;{}");
}

@media (max-width: 600px) {
    .card {
        padding: 0.5rem;
    }
    .nav a:hover {
        color: var(--brand);
    }
}

@keyframes fadeIn {
    from { opacity: 0; }
    to { opacity: 1; }
}

.site-footer {
    margin-top: 2rem;
}
`;

export const HTML_SOURCE = `<!DOCTYPE html>
<html lang="en">
<head>
    <meta charset="utf-8">
    <title>Shop</title>
</head>
<body>
    <header class="top">
        <nav id="menu">
            <a href="/">Home</a>
        </nav>
    </header>
    <style>
        .site-footer {
            color: gray;
        }
        @media (max-width: 600px) {
            .card { padding: 0; }
        }
        @keyframes fadeIn {
            from { opacity: 0; }
            to { opacity: 1; }
        }
    </style>
    <main>
        <section id="products">
            <div id="product-list">
                <p>Loading products</p>
            </div>
        </section>
    </main>
    <footer class="site-footer">
        <p>&copy; Shop</p>
    </footer>
    <script src="/vendor.js"></script>
    <script>
        function initApp() {
            const list = document.getElementById("product-list");
            list.textContent = "Ready";
        }
        class Cart {
            add(item) {
                return item;
            }
        }
        initApp();
    </script>
</body>
</html>
`;

/** Sections left open: the tests want sane ranges anyway. */
export const UNCLOSED_HTML = `<html>
<body>
<main>
  <section id="intro">
    <p>Welcome
    <div class="box">
      <p>Unclosed div
  </section>
  <section id="second">
    <article>
      <p>Article without end tag
  </section>
</main>
<footer>
  <p>Footer without end tags
`;

/** Runs a tool the way the registry does: input parsed (defaults applied) first. */
export async function run<I, D>(
    tool: {
        input: ToolInput<I>;
        execute(input: I, ctx: ToolContext): Promise<ToolResult<D>>;
    },
    args: unknown,
    ctx: ToolContext
): Promise<ToolResult<D>> {
    return tool.execute(inputSchema(tool.input).parse(args), ctx);
}
