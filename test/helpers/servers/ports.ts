import net from 'node:net'

/** A port nothing listens on now, for a server the test starts itself. */
export async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** Waits until something accepts connections on `port`, or fails early when `exited` settles. */
export async function waitForPort(port: number, exited: Promise<unknown>): Promise<void> {
  let gone = false
  void exited.then(() => (gone = true))
  for (let attempt = 0; attempt < 200 && !gone; attempt++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1')
      socket.once('connect', () => {
        socket.destroy()
        resolve(true)
      })
      socket.once('error', () => resolve(false))
    })
    if (open) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`nothing listens on ${port}`)
}
