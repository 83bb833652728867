// The ceiling of the stack: a bare node:http server answering one fixed JSON-RPC response of the
// size flashnode answers, in 1 process or a cluster of N (argv: port, processes, response file).
import cluster from "node:cluster";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const [portArg, processesArg, responseFile] = process.argv.slice(2);
const processes = Number(processesArg ?? "1");
const body = readFileSync(responseFile!, "utf8");
const length = String(Buffer.byteLength(body));

if (processes > 1 && cluster.isPrimary) {
  for (let i = 0; i < processes; i++) cluster.fork();
} else {
  createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json", "content-length": length });
      res.end(body);
    });
  }).listen(Number(portArg), "127.0.0.1");
}
