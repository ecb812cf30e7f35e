// The rafle explorer: a board, the value of its position and of every move, from the JSON API
// of `rafle serve` (/api/v1/...). Plain script, no dependencies, no network but the server's.
'use strict';

(() => {
  const SVG = 'http://www.w3.org/2000/svg';

  const VARIANTS = {
    // The names a link may give besides the variant's own: rafle_draughts' Variant aliases, as
    // the command line and the API take them (a test of the server checks they agree).
    international: {
      name: 'International',
      aliases: ['intl', '10x10'],
      size: 10,
      start: 'W:W31-50:B1-20',
      example: 'W:W28,K46:BK5',
    },
    brazilian: {
      name: 'Brazilian',
      aliases: ['brazil', '8x8'],
      size: 8,
      start: 'W:W21-32:B1-12',
      example: 'W:WK1,K2:BK28',
    },
  };

  // Milliseconds between the plies of the best line when it plays by itself.
  const LINE_STEP_MS = 700;

  // Categories as the API names them, and as seen by the other side.
  const OTHER_SIDE = {
    win: 'loss',
    'cursed-win': 'blessed-loss',
    draw: 'draw',
    'blessed-loss': 'cursed-win',
    loss: 'win',
    unknown: 'unknown',
  };
  const CATEGORY_LABEL = {
    win: 'Win',
    'cursed-win': 'Cursed win',
    draw: 'Draw',
    'blessed-loss': 'Blessed loss',
    loss: 'Loss',
    unknown: 'Unknown',
  };
  const CLASS_LABEL = {
    win: 'win',
    cursed_win: 'cursed win',
    draw: 'draw',
    blessed_loss: 'blessed loss',
    loss: 'loss',
  };
  const TOOLS = ['wm', 'wk', 'bm', 'bk', 'empty'];
  const PIECE_HREF = { wm: '#piece-w', wk: '#piece-wk', bm: '#piece-b', bk: '#piece-bk' };
  const PIECE_NAME = {
    wm: 'white man',
    wk: 'white king',
    bm: 'black man',
    bk: 'black king',
  };

  const S = {
    variant: 'international',
    fen: '', // the position shown, as the server wrote it back
    turn: 'white',
    pieces: new Map(), // square number -> 'wm' | 'wk' | 'bm' | 'bk'
    data: null, // the API's answer for the position shown, null while unknown or on error
    history: [], // {variant, fen, move: {text, from, to, captures} | null}
    index: -1,
    setup: false,
    tool: 'wm',
    lastPlaced: null, // the square set last in set-up; clicking it again cycles its piece
    selected: null, // the square of the piece picked to move
    hover: null, // the move hovered in the list
    flipped: false,
    showNumbers: false,
    line: null, // {start: history index, plies, end, timer}
    seq: 0, // requests sent; an answer to an older one is dropped
    tables: null,
    invalid: null, // a link's FEN the server refused: no position is shown for it
  };

  const cache = new Map();
  const $ = (id) => document.getElementById(id);
  let els;

  // ---- positions -------------------------------------------------------------------------

  function geometry(variant) {
    const size = VARIANTS[variant].size;
    return { size, perRow: size / 2, squares: (size * size) / 2 };
  }

  // Row and column (0-based, row 0 at the top, White at the bottom) of a square.
  function coordinates(variant, square) {
    const { perRow } = geometry(variant);
    const row = Math.floor((square - 1) / perRow);
    const k = (square - 1) % perRow;
    const column = row % 2 === 0 ? 2 * k + 1 : 2 * k;
    return { row, column };
  }

  function squareAt(variant, row, column) {
    const { perRow } = geometry(variant);
    if ((row + column) % 2 === 0) return null;
    return row * perRow + Math.floor(column / 2) + 1;
  }

  // One square of a FEN: a number, or a Brazilian algebraic name (a1..h8).
  function parseSquare(variant, text) {
    const { size, squares } = geometry(variant);
    if (/^\d+$/.test(text)) {
      const n = Number(text);
      if (n >= 1 && n <= squares) return n;
      return null;
    }
    const m = /^([a-z])(\d+)$/i.exec(text);
    if (!m) return null;
    const column = m[1].toLowerCase().charCodeAt(0) - 97;
    const row = size - Number(m[2]);
    if (column < 0 || column >= size || row < 0 || row >= size) return null;
    return squareAt(variant, row, column);
  }

  // The pieces and side to move of a FEN the server wrote (or one close to it); null if it
  // cannot be read. The server is the judge of a FEN: this only draws it.
  function parseFen(variant, fen) {
    const text = fen.trim().replace(/^\[FEN\s+"?/i, '').replace(/"?\]$/, '').replace(/\.$/, '');
    const parts = text.split(':');
    if (parts.length < 1) return null;
    const turnChar = parts[0].trim().toUpperCase();
    if (turnChar !== 'W' && turnChar !== 'B') return null;
    const pieces = new Map();
    for (const part of parts.slice(1)) {
      const side = part.trim();
      if (!side) continue;
      const colour = side[0].toUpperCase();
      if (colour !== 'W' && colour !== 'B') return null;
      const c = colour === 'W' ? 'w' : 'b';
      const list = side.slice(1).trim();
      if (!list) continue;
      for (const raw of list.split(',')) {
        let item = raw.trim();
        if (!item) return null;
        let king = false;
        if (item[0] === 'K' || item[0] === 'k') {
          king = true;
          item = item.slice(1);
        }
        const range = item.split('-');
        if (range.length === 1) {
          const sq = parseSquare(variant, range[0]);
          if (sq === null) return null;
          pieces.set(sq, c + (king ? 'k' : 'm'));
        } else if (range.length === 2) {
          const a = parseSquare(variant, range[0]);
          const b = parseSquare(variant, range[1]);
          if (a === null || b === null || a > b) return null;
          for (let sq = a; sq <= b; sq++) pieces.set(sq, c + (king ? 'k' : 'm'));
        } else {
          return null;
        }
      }
    }
    return { turn: turnChar === 'W' ? 'white' : 'black', pieces };
  }

  function buildFen(turn, pieces) {
    const side = (colour) =>
      [...pieces.entries()]
        .filter(([, p]) => p[0] === colour)
        .sort((a, b) => a[0] - b[0])
        .map(([sq, p]) => (p[1] === 'k' ? 'K' : '') + sq)
        .join(',');
    return `${turn === 'white' ? 'W' : 'B'}:W${side('w')}:B${side('b')}`;
  }

  // From and to squares of a move written `32-28`, `28x19` or `12x23x14x3`.
  function moveSquares(text) {
    const squares = text.split(/[-x:]/).map(Number);
    return { from: squares[0], to: squares[squares.length - 1] };
  }

  // ---- the API ---------------------------------------------------------------------------

  async function api(path) {
    let response;
    try {
      response = await fetch(path, { headers: { Accept: 'application/json' } });
    } catch (e) {
      throw new Error(`the server did not answer (${e.message})`);
    }
    let body = null;
    try {
      body = await response.json();
    } catch (e) {
      body = null;
    }
    if (!response.ok) {
      const message = body && body.error ? body.error : `HTTP ${response.status}`;
      throw new Error(message);
    }
    if (!body) throw new Error('the server sent no JSON');
    return body;
  }

  function probe(variant, fen) {
    const key = `${variant}|${fen}`;
    if (cache.has(key)) return Promise.resolve(cache.get(key));
    return api(`/api/v1/${variant}?fen=${encodeURIComponent(fen)}`).then((data) => {
      if (cache.size > 500) cache.delete(cache.keys().next().value);
      cache.set(key, data);
      cache.set(`${variant}|${data.fen}`, data);
      return data;
    });
  }

  // ---- navigation ------------------------------------------------------------------------

  // Shows a position: asks the server, then draws the answer. `how` is 'push' (a new position
  // after the current one), 'replace' (the current entry) or 'none' (moving in the history).
  // Resolves to true if the server accepted the position.
  async function show(variant, fen, how, move = null) {
    const seq = ++S.seq;
    setBusy(true);
    let data;
    try {
      data = await probe(variant, fen);
    } catch (e) {
      if (seq !== S.seq) return false;
      setBusy(false);
      showError(e.message);
      if (S.setup) {
        S.data = null;
        renderValue();
        renderMoves();
      }
      return false;
    }
    if (seq !== S.seq) return false;
    setBusy(false);
    showError(null);
    S.invalid = null;
    const entry = { variant, fen: data.fen, move };
    if (how === 'push') {
      S.history.splice(S.index + 1);
      S.history.push(entry);
      S.index = S.history.length - 1;
    } else if (how === 'replace' || S.index < 0) {
      if (S.index < 0) S.index = 0;
      S.history[S.index] = entry;
    }
    S.variant = variant;
    S.data = data;
    S.fen = data.fen;
    const parsed = parseFen(variant, data.fen);
    if (parsed) {
      S.turn = parsed.turn;
      if (!S.setup) S.pieces = parsed.pieces;
    } else {
      S.turn = data.turn;
    }
    S.selected = null;
    S.hover = null;
    els.fen.value = data.fen;
    updateUrl();
    render();
    return true;
  }

  function updateUrl() {
    const params = new URLSearchParams();
    params.set('variant', S.variant);
    params.set('fen', S.fen);
    const url = `${location.pathname}?${params.toString()}`;
    try {
      history.replaceState({ variant: S.variant, fen: S.fen }, '', url);
    } catch (e) {
      // A page opened from a file has no URL to change.
    }
  }

  function go(index) {
    if (index < 0 || index >= S.history.length) return;
    S.index = index;
    const entry = S.history[index];
    show(entry.variant, entry.fen, 'none', entry.move);
  }

  function back() {
    stopLine();
    go(S.index - 1);
  }

  function forward() {
    stopLine();
    go(S.index + 1);
  }

  function play(move) {
    if (!move || !move.fen) return;
    stopLine();
    show(S.variant, move.fen, 'push', {
      text: move.move,
      from: move.from,
      to: move.to,
      captures: move.captures || [],
    });
  }

  function switchVariant(variant) {
    if (variant === S.variant && !S.setup) return;
    stopLine();
    leaveSetup(false);
    S.flipped = false;
    show(variant, VARIANTS[variant].example, 'push');
  }

  // ---- the best line ---------------------------------------------------------------------

  async function bestLine() {
    if (S.setup || !S.data) return;
    stopLine();
    const variant = S.variant;
    const fen = S.fen;
    let answer;
    setBusy(true);
    try {
      answer = await api(`/api/v1/${variant}/line?fen=${encodeURIComponent(fen)}`);
    } catch (e) {
      setBusy(false);
      showError(`no best line: ${e.message}`);
      return;
    }
    setBusy(false);
    if (S.variant !== variant || S.fen !== fen) return;
    const plies = answer.line || [];
    // The line's positions follow the current one in the history, to step through.
    S.history.splice(S.index + 1);
    for (const ply of plies) {
      const { from, to } = moveSquares(ply.move);
      S.history.push({ variant, fen: ply.fen, move: { text: ply.move, from, to, captures: [] } });
    }
    S.line = { start: S.index, plies, end: answer.end || '', timer: null };
    renderLine();
    renderNav();
    if (plies.length > 0) {
      S.line.timer = setInterval(stepLine, LINE_STEP_MS);
    }
  }

  function stepLine() {
    const line = S.line;
    if (!line) return;
    const last = line.start + line.plies.length;
    if (S.index >= last) {
      stopLine();
      return;
    }
    go(S.index + 1);
    if (S.index >= last) stopLine();
  }

  function stopLine() {
    if (S.line && S.line.timer) {
      clearInterval(S.line.timer);
      S.line.timer = null;
    }
    if (els) renderLine();
  }

  // The line stays shown while the position is one of its own.
  function lineInView() {
    const line = S.line;
    if (!line) return false;
    if (S.index < line.start || S.index > line.start + line.plies.length) return false;
    const first = S.history[line.start + 1];
    return !first || first.fen === (line.plies[0] && line.plies[0].fen);
  }

  // ---- set-up mode -----------------------------------------------------------------------

  function enterSetup() {
    stopLine();
    S.setup = true;
    S.selected = null;
    S.setupBefore = { variant: S.variant, fen: S.fen };
    render();
  }

  // Leaves set-up mode; `keep` records the position set up in the history.
  async function leaveSetup(keep) {
    if (!S.setup) return;
    if (keep) {
      const fen = buildFen(S.turn, S.pieces);
      S.setup = false;
      const ok = await show(S.variant, fen, 'push');
      if (!ok) {
        S.setup = true;
        render();
      }
      return;
    }
    S.setup = false;
    render();
  }

  function setupChanged() {
    const fen = buildFen(S.turn, S.pieces);
    els.fen.value = fen;
    S.fen = fen;
    render();
    show(S.variant, fen, 'none');
  }

  function placeAt(square) {
    const current = S.pieces.get(square) || 'empty';
    let next = S.tool;
    // Clicking the square just set again cycles from what it holds: white man, white king,
    // black man, black king, empty; a fresh square gets the chosen piece.
    if (S.lastPlaced === square && S.tool !== 'empty') {
      next = TOOLS[(TOOLS.indexOf(current) + 1) % TOOLS.length];
    }
    S.lastPlaced = square;
    if (next === 'empty') S.pieces.delete(square);
    else S.pieces.set(square, next);
    setupChanged();
  }

  // ---- the board -------------------------------------------------------------------------

  function movesFrom(square) {
    if (!S.data || S.setup) return [];
    return S.data.moves.filter((m) => m.from === square);
  }

  function onSquare(square) {
    if (S.setup) {
      placeAt(square);
      return;
    }
    if (!S.data) return;
    if (S.selected !== null) {
      const moves = movesFrom(S.selected).filter((m) => m.to === square);
      if (moves.length === 1) {
        play(moves[0]);
        return;
      }
      if (moves.length > 1) {
        // Two captures share their start and end: the list tells them apart.
        S.hover = moves;
        showError(null);
        setNote('Several captures go there: pick one in the move list.');
        render();
        return;
      }
    }
    if (movesFrom(square).length > 0 && S.selected !== square) {
      S.selected = square;
    } else {
      S.selected = null;
    }
    S.hover = null;
    render();
  }

  function el(name, attrs = {}, parent = null) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }

  function renderBoard() {
    const svg = els.board;
    const { size } = geometry(S.variant);
    svg.setAttribute('viewBox', `0 0 ${size} ${size}`);
    svg.classList.toggle('numbers', S.showNumbers);
    svg.classList.toggle('setup', S.setup);
    while (svg.lastChild && svg.lastChild !== els.boardTitle) svg.removeChild(svg.lastChild);

    const last = !S.setup && S.history[S.index] ? S.history[S.index].move : null;
    const hovered = Array.isArray(S.hover) ? S.hover : S.hover ? [S.hover] : [];
    const destinations = new Set(
      S.selected !== null ? movesFrom(S.selected).map((m) => m.to) : [],
    );
    const movable = new Set(S.data && !S.setup ? S.data.moves.map((m) => m.from) : []);
    const captured = new Set();
    for (const m of hovered) for (const c of m.captures || []) captured.add(c);

    const squares = el('g', { class: 'squares' }, svg);
    const pieces = el('g', { class: 'pieces' }, svg);
    // Over the pieces, so that a number is read on an occupied square too.
    const labels = el('g', { class: 'labels' }, svg);
    for (let row = 0; row < size; row++) {
      for (let column = 0; column < size; column++) {
        const x = S.flipped ? size - 1 - column : column;
        const y = S.flipped ? size - 1 - row : row;
        const square = squareAt(S.variant, row, column);
        if (square === null) {
          el('rect', { x, y, width: 1, height: 1, class: 'light' }, squares);
          continue;
        }
        const piece = S.pieces.get(square);
        const classes = ['sq'];
        if (last && (last.from === square || last.to === square)) classes.push('last');
        if (hovered.some((m) => m.from === square || m.to === square)) classes.push('hover');
        if (captured.has(square)) classes.push('captured');
        if (S.selected === square) classes.push('selected');
        if (destinations.has(square)) classes.push('dest');
        if (movable.has(square)) classes.push('movable');
        const g = el(
          'g',
          { class: classes.join(' '), 'data-square': square, 'data-piece': piece || '' },
          squares,
        );
        const title = el('title', {}, g);
        title.textContent = `${square}${piece ? `: ${PIECE_NAME[piece]}` : ''}`;
        el('rect', { x, y, width: 1, height: 1, class: 'dark' }, g);
        if (destinations.has(square)) {
          el('circle', { cx: x + 0.5, cy: y + 0.5, r: 0.16, class: 'dot' }, g);
        }
        const num = el('text', { x: x + 0.05, y: y + 0.21, class: 'num', 'data-label': square }, labels);
        if (S.hoverSquare === square) num.classList.add('hovered');
        num.textContent = String(square);
        if (piece) {
          el('use', { href: PIECE_HREF[piece], x, y, class: 'piece' }, pieces);
        }
      }
    }
    const moving = S.turn === 'white' ? 'White' : 'Black';
    els.boardTitle.textContent = `${VARIANTS[S.variant].name} board, ${moving} to move: ${S.fen}`;
  }

  // ---- the value and the moves -----------------------------------------------------------

  function plies(n) {
    const moves = Math.ceil(n / 2);
    return `${n} ${n === 1 ? 'ply' : 'plies'} (${moves} ${moves === 1 ? 'move' : 'moves'})`;
  }

  function sideName(turn) {
    return turn === 'white' ? 'White' : 'Black';
  }

  function renderValue() {
    const d = S.data;
    const box = els.value;
    const moving = sideName(S.turn);
    const other = sideName(S.turn === 'white' ? 'black' : 'white');
    let category = 'none';
    let title = '';
    let detail = '';
    let rules = '';
    if (!d) {
      if (S.setup) title = 'Not a position the tables can answer';
      else if (S.invalid) title = 'No position: the FEN is not valid';
      else title = '…';
    } else {
      category = d.category || 'unknown';
      const dtw = d.dtw;
      if (d.game_over) {
        const reason = d.pieces === 0 || !hasPieces(S.turn) ? 'has no piece left' : 'has no move';
        title = `Game over: ${other} wins`;
        detail = `${moving} ${reason}.`;
        category = 'loss';
      } else if (category === 'unknown') {
        title = 'Unknown: past the tables';
        detail = `${d.pieces} pieces; the ${d.variant} tables answer up to ${d.max_pieces}.`;
      } else if (category === 'win') {
        title = `${moving} wins`;
        detail = dtw !== null && dtw !== undefined ? `Win in ${plies(dtw)}.` : 'Win.';
      } else if (category === 'loss') {
        title = `${other} wins`;
        detail = dtw !== null && dtw !== undefined ? `${moving} to move loses in ${plies(dtw)}.` : 'Loss.';
      } else if (category === 'draw') {
        title = 'Draw';
        detail = d.wdl === 'draw' ? 'A draw with best play.' : 'A draw under the draw rules.';
      } else if (category === 'cursed-win') {
        title = `Cursed win for ${moving}`;
        detail = `Won in ${plies(dtw)} without the draw rules, drawn under them.`;
      } else if (category === 'blessed-loss') {
        title = `Blessed loss for ${moving}`;
        detail = `Lost in ${plies(dtw)} without the draw rules, drawn under them.`;
      }
      if (category !== 'unknown') {
        if (d.class) {
          const count = d.count !== null && d.count !== undefined ? `, count ${d.count}` : '';
          rules = `Rule ${d.rule}: ${CLASS_LABEL[d.class] || d.class}${count} (limits ${d.limits}).`;
        } else {
          rules = `Rule ${d.rule}; no draw-rule tables.`;
        }
      }
    }
    // Coloured by the verdict, not by what the position is for the side to move: "White wins"
    // looks the same with either side to move, with a disc of the winner's colour. A cursed
    // win and a blessed loss are both draws under the rules, won without them.
    const winning = { win: S.turn, loss: S.turn === 'white' ? 'black' : 'white' };
    const winner = winning[category] || '';
    const verdict = winner
      ? 'win'
      : category === 'cursed-win' || category === 'blessed-loss'
        ? 'rules-draw'
        : category;
    box.className = `value verdict-${verdict}${winner ? ` winner-${winner}` : ''}`;
    box.dataset.winner = winner;
    // The variant of the answer itself, not of the buttons: the answer shown is for this board.
    const variant = d && VARIANTS[d.variant] ? d.variant : '';
    box.dataset.variant = variant;
    els.valueVariant.textContent = variant
      ? `${VARIANTS[variant].name} draughts (${VARIANTS[variant].size}\u00d7${VARIANTS[variant].size})`
      : '';
    box.dataset.category = d ? d.category || '' : '';
    box.dataset.gameOver = d && d.game_over ? 'true' : 'false';
    box.dataset.dtw = d && d.dtw !== null && d.dtw !== undefined ? String(d.dtw) : '';
    box.dataset.class = d && d.class ? d.class : '';
    box.dataset.count = d && d.count !== null && d.count !== undefined ? String(d.count) : '';
    els.valueTitle.textContent = title;
    els.valueDetail.textContent = detail;
    els.valueRules.textContent = rules;
  }

  function hasPieces(turn) {
    const c = turn === 'white' ? 'w' : 'b';
    for (const p of S.pieces.values()) if (p[0] === c) return true;
    return false;
  }

  // What a move is worth to the side playing it: the API gives the value for the side to move
  // after it.
  function moverValue(m) {
    const category = OTHER_SIDE[m.category] || 'unknown';
    const dtw = m.dtw === null || m.dtw === undefined ? null : m.dtw + 1;
    let text = CATEGORY_LABEL[category];
    if ((category === 'win' || category === 'loss') && dtw !== null) text += ` in ${plies(dtw)}`;
    if (category === 'cursed-win' && dtw !== null) text += ` (won in ${dtw} without the rules)`;
    if (category === 'blessed-loss' && dtw !== null) text += ` (lost in ${dtw} without the rules)`;
    return { category, text };
  }

  function renderMoves() {
    const list = els.moves;
    list.textContent = '';
    const d = S.data;
    const moves = d && !S.setup ? d.moves : [];
    const hovered = Array.isArray(S.hover) ? S.hover : S.hover ? [S.hover] : [];
    moves.forEach((m, i) => {
      const value = moverValue(m);
      const li = document.createElement('li');
      li.className = `move cat-${value.category}`;
      li.dataset.move = m.move;
      li.dataset.category = m.category;
      li.dataset.mover = value.category;
      if (hovered.includes(m)) li.classList.add('hover');
      if (S.selected !== null && m.from === S.selected) li.classList.add('from-selected');
      const button = document.createElement('button');
      button.type = 'button';
      button.dataset.index = String(i);
      const after = [];
      if (m.class) {
        const count = m.count !== null && m.count !== undefined ? `, count ${m.count}` : '';
        after.push(`then ${CLASS_LABEL[m.class] || m.class}${count} for the side to move`);
      }
      if (m.resets) after.push('resets the draw-rule counter');
      button.title = `Play ${m.move}${after.length ? `: ${after.join('; ')}` : ''}`;
      const text = document.createElement('span');
      text.className = 'mv';
      text.textContent = m.move;
      const res = document.createElement('span');
      res.className = 'res';
      res.textContent = value.text;
      button.append(text, res);
      if (value.category === 'cursed-win' || value.category === 'blessed-loss') {
        const mark = document.createElement('span');
        mark.className = 'mark';
        mark.textContent = value.category === 'cursed-win' ? 'cursed' : 'blessed';
        button.append(mark);
      }
      li.appendChild(button);
      list.appendChild(li);
    });
    els.noMoves.hidden = !(d && !S.setup && moves.length === 0);
    els.noMoves.textContent = d && d.game_over ? 'No moves: the game is over.' : 'No legal move.';
  }

  function renderLine() {
    const show = lineInView() && !S.setup;
    els.lineBox.hidden = !show;
    if (!show) return;
    const line = S.line;
    els.line.textContent = '';
    line.plies.forEach((ply, i) => {
      const li = document.createElement('li');
      const at = line.start + i + 1;
      if (at === S.index) li.className = 'current';
      if (at <= S.index) li.classList.add('played');
      const button = document.createElement('button');
      button.type = 'button';
      button.dataset.at = String(at);
      button.textContent = ply.move;
      button.title = `Go to the position after ${ply.move}`;
      li.appendChild(button);
      els.line.appendChild(li);
    });
    const done = S.index === line.start + line.plies.length;
    els.lineEnd.textContent = line.plies.length === 0 ? line.end || 'The game is over.' : done ? line.end : '';
    els.lineStop.hidden = !line.timer;
  }

  function renderNav() {
    els.back.disabled = S.setup || S.index <= 0;
    els.forward.disabled = S.setup || S.index >= S.history.length - 1;
    els.bestLine.disabled = S.setup || !S.data || S.data.category === 'unknown';
    els.flip.setAttribute('aria-pressed', String(S.flipped));
    els.setupToggle.setAttribute('aria-pressed', String(S.setup));
    els.setupToggle.textContent = S.setup ? 'Cancel set-up' : 'Set up';
  }

  function render() {
    for (const b of els.variantButtons) {
      b.setAttribute('aria-pressed', String(b.dataset.variant === S.variant));
    }
    // No side is to move on the empty board of a link whose FEN was refused.
    els.turn.textContent = S.invalid ? 'No position' : `${sideName(S.turn)} to move`;
    els.turn.className = `turn turn-${S.turn}`;
    els.mode.hidden = !S.setup;
    els.setupBox.hidden = !S.setup;
    els.sideToggle.textContent = `Side to move: ${sideName(S.turn)}`;
    for (const b of els.tools) b.setAttribute('aria-checked', String(b.dataset.tool === S.tool));
    renderBoard();
    renderValue();
    renderMoves();
    renderLine();
    renderNav();
    renderTables();
  }

  function renderTables() {
    const t = S.tables;
    if (!t) return;
    const parts = Object.keys(VARIANTS).map((v) => {
      const x = t[v];
      if (!x || !x.max_pieces) return `${VARIANTS[v].name}: no tables`;
      return `${VARIANTS[v].name} up to ${x.max_pieces} pieces`;
    });
    els.tablesInfo.textContent = `Tables: ${parts.join('; ')}.`;
  }

  function showError(message) {
    els.error.hidden = !message;
    els.error.textContent = message || '';
    els.error.classList.remove('note');
  }

  function setNote(message) {
    els.error.hidden = false;
    els.error.textContent = message;
    els.error.classList.add('note');
  }

  function setBusy(busy) {
    document.body.classList.toggle('busy', busy);
  }

  // ---- start -----------------------------------------------------------------------------

  // The variant a name stands for, by its name or an alias, in any case; null if none.
  function variantNamed(name) {
    const lower = name.toLowerCase();
    const found = Object.keys(VARIANTS).find(
      (v) => v === lower || VARIANTS[v].aliases.includes(lower),
    );
    return found || null;
  }

  // The link's variant and FEN; `asked` is the variant it names (null if it names none), and
  // `named` whether that name is one rafle knows.
  function fromUrl() {
    const params = new URLSearchParams(location.search);
    const asked = params.get('variant') || null;
    const known = asked === null ? null : variantNamed(asked);
    const variant = known || 'international';
    const fen = params.get('fen');
    return { variant, fen, asked, named: Boolean(known) };
  }

  async function load(replace) {
    const { variant, fen, asked, named } = fromUrl();
    S.variant = variant;
    S.history = [];
    S.index = -1;
    stopLine();
    S.line = null;
    S.setup = false;
    S.invalid = null;
    const ok = await show(variant, fen || VARIANTS[variant].example, replace ? 'replace' : 'push');
    if (!ok && fen) {
      showInvalid(fen, els.error.textContent);
    } else if (ok && !named && (fen || asked !== null)) {
      noteAssumedVariant(variant, fen, asked);
    }
  }

  // A link whose FEN the server refused: the error at the top, an empty board and no value,
  // rather than another position passed off as the one asked for. The URL keeps the link's.
  function showInvalid(fen, message) {
    S.invalid = fen;
    S.data = null;
    S.fen = '';
    S.turn = 'white';
    S.pieces = new Map();
    S.selected = null;
    render();
    els.fen.value = fen;
    showError(`This link's position cannot be shown: ${message}`);
  }

  // A link without `variant=`, or with a name rafle does not know, is read as international.
  // An unknown name is said so where the error would be; a link naming none, when its FEN is a
  // Brazilian position too; either with a link to the other reading when the FEN is one.
  async function noteAssumedVariant(variant, fen, asked) {
    const other = Object.keys(VARIANTS).find((v) => v !== variant);
    const seq = S.seq;
    const reading = `Read as ${VARIANTS[variant].name} draughts, the default: `;
    if (asked !== null) {
      // Shown whole up to a length, so that a long name does not fill the page.
      const name = asked.length > 40 ? `${asked.slice(0, 40)}…` : asked;
      const known = Object.keys(VARIANTS)
        .map((v) => [v, ...VARIANTS[v].aliases].join(', '))
        .join('; ');
      setNote(`${reading}the link names the variant "${name}", which is not one rafle knows (${known}). `);
    }
    if (!fen) return;
    let valid = false;
    try {
      const response = await fetch(`/api/v1/${other}?fen=${encodeURIComponent(fen)}`, {
        headers: { Accept: 'application/json' },
      });
      // Only a malformed FEN is refused with 400; a missing table says nothing of the FEN.
      valid = response.status !== 400;
    } catch (e) {
      valid = false;
    }
    // Not if another position has been shown meanwhile.
    if (!valid || seq !== S.seq) return;
    if (asked === null) {
      setNote(
        `${reading}the link names no variant, and this FEN is a ${VARIANTS[other].name} ` +
          'position too. ',
      );
    }
    const link = document.createElement('a');
    link.id = 'other-variant';
    link.href = `?variant=${other}&fen=${encodeURIComponent(fen)}`;
    link.textContent = `Show it as ${VARIANTS[other].name}`;
    link.addEventListener('click', (event) => {
      event.preventDefault();
      stopLine();
      show(other, fen, 'push');
    });
    els.error.appendChild(link);
  }

  function init() {
    els = {
      board: $('board'),
      boardTitle: $('board-label'),
      turn: $('turn'),
      mode: $('mode'),
      fen: $('fen'),
      fenForm: $('fen-form'),
      error: $('error'),
      valueVariant: $('value-variant'),
      value: $('value'),
      valueTitle: $('value-title'),
      valueDetail: $('value-detail'),
      valueRules: $('value-rules'),
      moves: $('moves'),
      noMoves: $('no-moves'),
      lineBox: $('line-box'),
      line: $('line'),
      lineEnd: $('line-end'),
      lineStop: $('line-stop'),
      back: $('back'),
      forward: $('forward'),
      bestLine: $('best-line'),
      flip: $('flip'),
      setupToggle: $('setup-toggle'),
      setupBox: $('setup'),
      sideToggle: $('side-toggle'),
      tablesInfo: $('tables-info'),
      variantButtons: document.querySelectorAll('[data-variant]'),
      tools: document.querySelectorAll('[data-tool]'),
    };

    els.board.addEventListener('click', (event) => {
      const g = event.target.closest('[data-square]');
      if (g) onSquare(Number(g.dataset.square));
    });
    els.board.addEventListener('mouseover', (event) => {
      const g = event.target.closest('[data-square]');
      els.board.dataset.hoverSquare = g ? g.dataset.square : '';
      // The number of the square under the pointer, shown even when numbers are off.
      S.hoverSquare = g ? Number(g.dataset.square) : null;
      for (const t of els.board.querySelectorAll('.num.hovered')) t.classList.remove('hovered');
      if (g) {
        const label = els.board.querySelector(`.num[data-label="${g.dataset.square}"]`);
        if (label) label.classList.add('hovered');
      }
    });
    els.board.addEventListener('mouseleave', () => {
      S.hoverSquare = null;
      for (const t of els.board.querySelectorAll('.num.hovered')) t.classList.remove('hovered');
    });
    els.fenForm.addEventListener('submit', async (event) => {
      event.preventDefault();
      const fen = els.fen.value.trim();
      if (!fen) return;
      stopLine();
      if (S.setup) {
        const parsed = parseFen(S.variant, fen);
        const ok = await show(S.variant, fen, 'none');
        if (ok && parsed) {
          S.pieces = parseFen(S.variant, S.fen).pieces;
          render();
        }
        return;
      }
      show(S.variant, fen, 'push');
    });
    $('copy-link').addEventListener('click', async () => {
      const url = location.href;
      try {
        await navigator.clipboard.writeText(url);
        setNote('Link copied.');
      } catch (e) {
        setNote(url);
      }
    });
    for (const b of els.variantButtons) {
      b.addEventListener('click', () => switchVariant(b.dataset.variant));
    }
    els.moves.addEventListener('click', (event) => {
      const button = event.target.closest('button[data-index]');
      if (button && S.data) play(S.data.moves[Number(button.dataset.index)]);
    });
    const hoverMove = (event) => {
      const button = event.target.closest('button[data-index]');
      const m = button && S.data ? S.data.moves[Number(button.dataset.index)] : null;
      if (m !== S.hover) {
        S.hover = m;
        renderBoard();
      }
    };
    els.moves.addEventListener('mouseover', hoverMove);
    els.moves.addEventListener('focusin', hoverMove);
    els.moves.addEventListener('mouseleave', () => {
      S.hover = null;
      renderBoard();
    });
    els.line.addEventListener('click', (event) => {
      const button = event.target.closest('button[data-at]');
      if (button) {
        stopLine();
        go(Number(button.dataset.at));
      }
    });
    els.lineStop.addEventListener('click', () => stopLine());
    els.back.addEventListener('click', back);
    els.forward.addEventListener('click', forward);
    els.bestLine.addEventListener('click', bestLine);
    els.flip.addEventListener('click', () => {
      S.flipped = !S.flipped;
      render();
    });
    els.setupToggle.addEventListener('click', () => {
      if (S.setup) {
        const before = S.setupBefore;
        S.setup = false;
        showError(null);
        show(before.variant, before.fen, 'none');
      } else {
        enterSetup();
      }
    });
    for (const b of els.tools) {
      b.addEventListener('click', () => {
        S.tool = b.dataset.tool;
        S.lastPlaced = null;
        render();
      });
    }
    els.sideToggle.addEventListener('click', () => {
      S.turn = S.turn === 'white' ? 'black' : 'white';
      setupChanged();
    });
    $('clear').addEventListener('click', () => {
      S.pieces = new Map();
      setupChanged();
    });
    $('start').addEventListener('click', () => {
      const start = parseFen(S.variant, VARIANTS[S.variant].start);
      S.pieces = start.pieces;
      S.turn = 'white';
      setupChanged();
    });
    $('setup-done').addEventListener('click', () => leaveSetup(true));
    document.addEventListener('keydown', (event) => {
      const tag = event.target && event.target.tagName;
      if (tag === 'INPUT' || tag === 'TEXTAREA' || event.altKey || event.ctrlKey || event.metaKey) {
        return;
      }
      if (event.key === 'ArrowLeft' && !S.setup) {
        back();
        event.preventDefault();
      } else if (event.key === 'ArrowRight' && !S.setup) {
        forward();
        event.preventDefault();
      } else if (event.key === 'Escape') {
        S.selected = null;
        S.hover = null;
        render();
      }
    });
    window.addEventListener('popstate', () => load(true));

    const numbers = $('numbers');
    if (numbers) {
      numbers.addEventListener('change', () => {
        S.showNumbers = numbers.checked;
        renderBoard();
      });
    }

    api('/api/v1/tables')
      .then((t) => {
        S.tables = t;
        renderTables();
      })
      .catch(() => {});
    render();
    load(true);
  }

  // For the browser test and the curious: the state, read-only by convention.
  window.rafleExplorer = { state: S };

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
