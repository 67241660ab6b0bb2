import Foundation
import SnapboardCore
import SnapboardLWS
import SnapboardProtocol
import SnapboardRoom
import SnapboardStore

extension Server {
    /// `POST /v1/canvases`: a new canvas with its own settings, stored at seq 0 before the answer (201).
    /// `POST /v1/canvases/{id}` names the canvas in the path, where a proxy that routes by path sees it.
    func createCanvas(_ socket: LWSSocket, body: [UInt8], id pathID: String? = nil) -> Int32 {
        // A null would read as a setting left out: it is refused instead, so a typo in a client cannot pass.
        if let parsed = try? JSONValue.parse(body), CanvasJSON.holdsNull(parsed) {
            return respondNow(socket, .error(400, "bad_request", "the body is not canvas settings: null is no setting (leave the key out)"))
        }
        let settings: CanvasSettings
        do {
            settings = try JSONDecoder().decode(CanvasSettings.self, from: Data(body))
        } catch {
            let why = body.isEmpty ? "the body is empty: send {} for the server's settings" : CanvasJSON.describe(error)
            return respondNow(socket, .error(400, "bad_request", "the body is not canvas settings: \(why)"))
        }
        if let pathID, let given = settings.id, given != pathID {
            return respondNow(socket, .error(400, "bad_request", "the body's id \(given) is not the path's \(pathID)"))
        }
        var chosen = pathID ?? settings.id ?? Epoch.randomID()
        if pathID == nil, settings.id == nil {
            // A shard names a new canvas after one of its own.
            while misrouted(chosen) { chosen = Epoch.randomID() }
        }
        let id = chosen
        if misrouted(id), CanvasAddress.isValidCanvasID(id) {
            // The body names another shard's canvas: posted again to its path, the acceptor routes it there.
            return respondNow(socket, HTTPResponse(307, "application/json", [], headers: [("Location", CanvasAddress.prefix + id)]))
        }
        guard CanvasAddress.isValidCanvasID(id) else {
            return respondNow(socket, .error(400, "bad_request", "canvas ids are 1–64 characters of [A-Za-z0-9_-]"))
        }
        let config: CanvasConfig
        switch settings.config(defaults: options.canvas, shapeLimit: options.canvas.maxShapes) {
        case .success(let c): config = c
        case .failure(let why): return respondNow(socket, .error(400, "bad_request", why.message))
        }
        guard registry.rooms[id] == nil, !registry.isBusy(id) else { return respondNow(socket, .error(409, "conflict", "canvas \(id) exists")) }
        let snapshot = CanvasSnapshot(id: id, config: config, seq: 0, rng: SeededGenerator(seed: id).state, shapes: [])
        _ = registry.hold(id)
        let quota = group?.canvasQuota
        return answerFromStore(socket) { store -> Creation in
            // In a cluster the canvas is claimed first: only its owner may write it.
            if let shared = store as? SharedCanvasStore { _ = try shared.load(id) }
            guard try store.summaries(prefix: id, after: nil, limit: 1).first?.id != id else { return .exists }
            guard quota?.reserve() ?? true else { return .full }
            do {
                try store.write([.checkpoint(snapshot, pruneBefore: 0)])
            } catch {
                quota?.release()
                throw error
            }
            return .created
        } answer: { server, creation in
            server.registry.release(id)
            switch creation {
            case .exists: return .error(409, "conflict", "canvas \(id) exists")
            case .full: return server.storageFull()
            case .created: break
            }
            server.logger.info("canvas created", metadata: ["canvas": "\(id)"])
            return HTTPResponse(201, "application/json", ServerMessage.canvasDocument(id: id, seq: 0, config: config, shapes: [], sessions: 0),
                                headers: [("Location", CanvasAddress.prefix + id)])
        } failed: { server in
            server.registry.release(id)
        }
    }

    /// `DELETE /v1/canvases/{id}`: closes its sessions with 4004 and removes it and its log (204).
    func deleteCanvas(_ socket: LWSSocket, _ id: String) -> Int32 {
        guard !registry.isBusy(id) else { return respondNow(socket, .error(409, "conflict", "canvas \(id) is being loaded or changed; try again")) }
        let loaded = registry.hold(id) != nil
        closeSessions(of: id, code: CloseCode.canvasDeleted, reason: "canvas deleted")
        return answerFromStore(socket) { store in
            try store.delete(id)
        } answer: { server, deleted in
            server.registry.release(id)
            guard deleted || loaded else { return .error(404, "not_found", "no canvas \(id)") }
            // A loaded canvas was counted when it was created, stored yet or not.
            server.group?.canvasQuota.release()
            server.logger.info("canvas deleted", metadata: ["canvas": "\(id)"])
            return HTTPResponse(204, "application/json", [])
        } failed: { server in
            server.registry.release(id)
        }
    }

    /// `PUT /v1/canvases/{id}`: replaces the canvas with an export (`snapboard-server export`), closing its
    /// sessions with 4005 so they reconnect to it (200).
    func importCanvas(_ socket: LWSSocket, _ id: String, body: [UInt8]) -> Int32 {
        var snapshot: CanvasSnapshot
        do {
            snapshot = try JSONDecoder().decode(CanvasSnapshot.self, from: Data(body))
        } catch {
            return respondNow(socket, .error(400, "bad_request", "the body is not a canvas export: \(CanvasJSON.describe(error))"))
        }
        // The path names the canvas: an export of one canvas may be imported as another.
        snapshot.id = id
        if let problem = snapshot.problem { return respondNow(socket, .error(400, "bad_request", "the export is not a canvas: \(problem)")) }
        guard snapshot.config.maxShapes <= options.canvas.maxShapes else {
            return respondNow(socket, .error(400, "bad_request", "maxShapes may be at most \(options.canvas.maxShapes) here"))
        }
        guard let canvas = try? Canvas(snapshot: snapshot) else { return respondNow(socket, .error(400, "bad_request", "the export is not a canvas")) }
        guard !registry.isBusy(id) else { return respondNow(socket, .error(409, "conflict", "canvas \(id) is being loaded or changed; try again")) }
        // A canvas in memory is counted already (it was created or loaded); one stored is too.
        let loaded = registry.hold(id) != nil
        closeSessions(of: id, code: CloseCode.canvasReplaced, reason: "canvas replaced")
        let stored = canvas.committedSnapshot
        let quota = group?.canvasQuota
        return answerFromStore(socket) { store -> [UInt8]? in
            let counted = try loaded || store.summaries(prefix: id, after: nil, limit: 1).first?.id == id
            guard counted || quota?.reserve() ?? true else { return nil }
            do {
                try store.replace(with: stored)
            } catch {
                if !counted { quota?.release() }
                throw error
            }
            return ServerMessage.canvasDocument(id: id, seq: stored.seq, config: stored.config, shapes: stored.shapes, sessions: 0)
        } answer: { server, json in
            server.registry.release(id)
            guard let json else { return server.storageFull() }
            server.logger.info("canvas imported", metadata: ["canvas": "\(id)", "seq": "\(stored.seq)"])
            return HTTPResponse(200, "application/json", json)
        } failed: { server in
            server.registry.release(id)
        }
    }

    /// The answer to a creation past `--max-stored-canvases`: 507, counted as a refusal.
    func storageFull() -> HTTPResponse {
        countRefusal("stored_canvases")
        return .error(507, "storage_full", "this server stores \(options.limits.storedCanvases) canvases, as many as it may: delete one first")
    }

    /// Closes every session on canvas `id`, whose room is gone: what they still send is dropped.
    func closeSessions(of id: String, code: UInt16, reason: String) {
        for case .websocket(let conn) in sockets.values where conn.canvas == id {
            conn.joined = false
            conn.backlog.removeAll()
            conn.outbox.requestClose(code: code, reason: reason)
        }
    }
}

/// What a `POST` of a canvas came to on the journal's thread.
private enum Creation: Sendable {
    case created, exists, full
}
