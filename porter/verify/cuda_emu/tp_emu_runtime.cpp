/* tp_emu_runtime.cpp: the scheduler behind tp_emu.h.
 *
 * Built once into a small shared library that every kernel build links against. It owns the
 * builtin index variables and runs a launch: blocks one after another on the calling OS thread,
 * the CUDA threads of a block as fibers on small private stacks.
 *
 * A fiber is a worker, not a CUDA thread: when its CUDA thread returns, the same fiber starts the
 * next unstarted thread without any context switch. A kernel that never synchronises therefore
 * runs as a plain loop on one stack; only threads that block at a barrier or warp collective hold
 * a fiber of their own until they are released.
 *
 * Rules (matching sm_70+ hardware where CUDA defines the behaviour):
 *   - __syncthreads() releases when every live thread of the block waits at it; threads that
 *     have returned count as arrived. All waiting threads must be at the same __syncthreads()
 *     call (file:line); otherwise the launch fails with TP_RT_DEADLOCK ("divergent barrier").
 *   - a warp collective (shuffle, vote, __syncwarp, match, reduce) releases when every live lane
 *     named in the caller's mask waits at a collective; lanes that do not exist or have returned
 *     are dropped from the mask. Reading from a lane that does not take part yields the caller's
 *     own value.
 *   - when no thread can run but some have not finished, the launch fails with TP_RT_DEADLOCK and
 *     a report of who waits where.
 */
#define TP_EMU_BUILDING_RUNTIME 1
#include "tp_emu.h"

#include <dlfcn.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <string>
#include <vector>

#if defined(__x86_64__) && !defined(TP_EMU_FORCE_UCONTEXT)
#define TP_FAST_SWITCH 1
#else
#define TP_FAST_SWITCH 0
#include <ucontext.h>
#endif

#define TP_EXPORT extern "C" __attribute__((visibility("default")))

/* the builtins: one OS thread runs every fiber, so plain globals suffice (the scheduler sets
 * threadIdx whenever it switches to another CUDA thread) */
extern "C" {
__attribute__((visibility("default"))) uint3 threadIdx = {0, 0, 0};
__attribute__((visibility("default"))) uint3 blockIdx = {0, 0, 0};
__attribute__((visibility("default"))) dim3 blockDim = dim3(1, 1, 1);
__attribute__((visibility("default"))) dim3 gridDim = dim3(1, 1, 1);
__attribute__((visibility("default"))) alignas(256) unsigned char tp_dyn_smem[TP_MAX_DYN_SMEM];
}

namespace {

/* ------------------------------------------------------------------ context switching */

#if TP_FAST_SWITCH
/* Saves the callee-saved registers plus MXCSR / x87 control word on the current stack, stores the
 * stack pointer in *save_sp and resumes the context whose stack pointer is new_sp. */
extern "C" void tp_fiber_switch(void **save_sp, void *new_sp);
extern "C" void tp_fiber_trampoline();
asm(R"(
  .text
  .p2align 4
  .globl tp_fiber_switch
  .hidden tp_fiber_switch
  .type tp_fiber_switch,@function
tp_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size tp_fiber_switch, .-tp_fiber_switch

  .p2align 4
  .globl tp_fiber_trampoline
  .hidden tp_fiber_trampoline
  .type tp_fiber_trampoline,@function
tp_fiber_trampoline:
  movq %r12, %rdi
  callq *%r13
  ud2
  .size tp_fiber_trampoline, .-tp_fiber_trampoline
)");

struct Context {
  void *sp = nullptr;
};
inline void ctx_switch(Context *from, Context *to) { tp_fiber_switch(&from->sp, to->sp); }
/* Lay out a fresh stack so that the first switch "returns" into the trampoline, which calls
 * entry(arg) with a correctly aligned stack. */
void ctx_init(Context *c, char *stack, size_t size, void (*entry)(void *), void *arg) {
  uintptr_t top = ((uintptr_t)(stack + size) & ~(uintptr_t)15) - 16;
  void **sp = (void **)top;
  *--sp = (void *)&tp_fiber_trampoline; /* return address */
  *--sp = nullptr;                      /* rbp */
  *--sp = nullptr;                      /* rbx */
  *--sp = arg;                          /* r12 */
  *--sp = (void *)entry;                /* r13 */
  *--sp = nullptr;                      /* r14 */
  *--sp = nullptr;                      /* r15 */
  --sp;                                 /* mxcsr + x87 control word */
  uint32_t ctl[2] = {0x1F80u, 0x037Fu};
  std::memcpy(sp, ctl, sizeof ctl);
  c->sp = sp;
}
#else
/* Portable fallback: ucontext (slower: a signal-mask syscall per switch). */
struct Context {
  ucontext_t uc;
};
inline void ctx_switch(Context *from, Context *to) { swapcontext(&from->uc, &to->uc); }
void (*g_uc_entry)(void *);
void uc_trampoline(unsigned hi, unsigned lo) {
  g_uc_entry((void *)(((uintptr_t)hi << 32) | (uintptr_t)lo));
}
void ctx_init(Context *c, char *stack, size_t size, void (*entry)(void *), void *arg) {
  g_uc_entry = entry;
  getcontext(&c->uc);
  c->uc.uc_stack.ss_sp = stack;
  c->uc.uc_stack.ss_size = size;
  c->uc.uc_link = nullptr;
  uintptr_t a = (uintptr_t)arg;
  makecontext(&c->uc, (void (*)())uc_trampoline, 2, (unsigned)(a >> 32), (unsigned)a);
}
#endif

/* ------------------------------------------------------------------ scheduler state */

enum ThreadState : uint8_t { T_UNSTARTED, T_READY, T_RUNNING, T_BARRIER, T_WARP, T_EXITED };

struct Fiber {
  Context ctx;
  char *mem = nullptr; /* mapping: guard page + stack */
  size_t len = 0;
  int tid = -1; /* CUDA thread (linear index in the block) it runs, -1 when free */
};

struct Sched {
  /* launch */
  tp_body_fn body = nullptr;
  void *body_ctx = nullptr;
  bool active = false;
  int nthreads = 0, nwarps = 0;
  std::vector<uint3> tidx; /* linear thread index -> threadIdx */

  /* block */
  std::vector<uint8_t> state;
  std::vector<Fiber *> fiber_of;
  std::vector<const char *> bar_file;
  std::vector<unsigned> bar_line;
  std::vector<int> bar_kind, bar_pred, bar_result;
  std::vector<tp_warp_req *> wreq;
  std::vector<unsigned> warp_live, warp_waiting;
  std::vector<int> ready; /* FIFO of released threads */
  size_t ready_head = 0;
  int next_unstarted = 0, live = 0, bar_arrived = 0;

  /* fibers */
  std::vector<Fiber *> all, free_list;
  Fiber *current = nullptr;
  int cur_tid = -1;
  Context sched_ctx;
  size_t stack_bytes = 0;

  /* error */
  int err = TP_RT_OK;
  std::string msg, err_file;
  unsigned err_line = 0;
};

Sched S;

/* read by the crash handler (must stay plain data) */
struct NotedBuffer {
  const char *lo, *hi;
  char label[96];
};
NotedBuffer g_buffers[64];
volatile int g_nbuffers = 0;
volatile int g_in_kernel = 0;

/* ------------------------------------------------------------------ errors */

std::string fmt_dim(uint3 v) {
  return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}
std::string site(const char *file, unsigned line) {
  std::string f = file ? file : "?";
  size_t slash = f.rfind('/');
  if (slash != std::string::npos) f = f.substr(slash + 1);
  return f + ":" + std::to_string(line);
}
std::string thread_range(const std::vector<int> &tids) {
  /* "thread (3,0,0)" or "48 threads (0,0,0)..(15,0,0), (32,0,0)..(63,0,0)": runs of consecutive
   * linear thread indices, the first few of them */
  if (tids.size() == 1) return "thread " + fmt_dim(S.tidx[tids[0]]);
  std::string s = std::to_string(tids.size()) + " threads ";
  size_t i = 0;
  for (int runs = 0; i < tids.size(); ++runs) {
    if (runs == 3) {
      s += ", ...";
      break;
    }
    size_t j = i;
    while (j + 1 < tids.size() && tids[j + 1] == tids[j] + 1) ++j;
    s += (runs ? ", " : "") + fmt_dim(S.tidx[tids[i]]);
    if (j > i) s += ".." + fmt_dim(S.tidx[tids[j]]);
    i = j + 1;
  }
  return s;
}

void set_error(int code, const std::string &msg, const char *file = nullptr, unsigned line = 0) {
  if (S.err != TP_RT_OK) return;
  S.err = code;
  S.msg = msg;
  S.err_file = file ? file : "";
  S.err_line = line;
}

/* ------------------------------------------------------------------ fibers */

void fiber_main(void *arg);

size_t stack_bytes() {
  if (!S.stack_bytes) {
    size_t kb = 256;
    if (const char *e = std::getenv("TP_EMU_STACK_KB")) kb = std::max(16L, std::atol(e));
    S.stack_bytes = kb * 1024;
  }
  return S.stack_bytes;
}

Fiber *new_fiber() {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t len = stack_bytes() + page;
  void *m = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (m == MAP_FAILED) {
    std::fprintf(stderr, "tileport-emu: cannot map a fiber stack\n");
    std::abort();
  }
  mprotect(m, page, PROT_NONE); /* stack overflow -> SIGSEGV, reported by the crash handler */
  Fiber *f = new Fiber;
  f->mem = (char *)m;
  f->len = len;
  ctx_init(&f->ctx, f->mem + page, len - page, fiber_main, f);
  S.all.push_back(f);
  return f;
}

Fiber *acquire_fiber() {
  if (!S.free_list.empty()) {
    Fiber *f = S.free_list.back();
    S.free_list.pop_back();
    return f;
  }
  return new_fiber();
}

/* After an aborted block, fibers stopped mid-kernel get a fresh context (their frames leak). */
void reset_fibers() {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  S.free_list.clear();
  for (Fiber *f : S.all) {
    f->tid = -1;
    ctx_init(&f->ctx, f->mem + page, f->len - page, fiber_main, f);
    S.free_list.push_back(f);
  }
}

/* Make `t` the running CUDA thread of fiber f (no switch). */
inline void begin_thread(Fiber *f, int t) {
  f->tid = t;
  S.fiber_of[t] = f;
  S.state[t] = T_RUNNING;
  S.current = f;
  S.cur_tid = t;
  threadIdx = S.tidx[t];
}

inline void make_ready(int t) {
  S.state[t] = T_READY;
  S.ready.push_back(t);
}

/* Park the running thread and return to the scheduler; returns once the thread is resumed. */
inline void block_current() {
  Fiber *f = S.current;
  ctx_switch(&f->ctx, &S.sched_ctx);
}

/* Fail the launch from inside a fiber: the scheduler abandons the block, never resumes us. */
[[noreturn]] void fail_in_fiber() {
  for (;;) block_current();
}

/* ------------------------------------------------------------------ block barrier */

void release_barrier() {
  /* all waiters must be at the same __syncthreads() call */
  const char *f0 = nullptr;
  unsigned l0 = 0;
  bool divergent = false;
  for (int t = 0; t < S.nthreads; ++t) {
    if (S.state[t] != T_BARRIER) continue;
    if (!f0) {
      f0 = S.bar_file[t];
      l0 = S.bar_line[t];
    } else if (S.bar_line[t] != l0 || std::strcmp(S.bar_file[t], f0) != 0) {
      divergent = true;
    }
  }
  if (divergent) {
    /* group the waiters by call site for the report */
    std::vector<std::pair<std::string, std::vector<int>>> groups;
    for (int t = 0; t < S.nthreads; ++t) {
      if (S.state[t] != T_BARRIER) continue;
      std::string s = site(S.bar_file[t], S.bar_line[t]);
      auto it = std::find_if(groups.begin(), groups.end(), [&](auto &g) { return g.first == s; });
      if (it == groups.end()) groups.push_back({s, {t}});
      else it->second.push_back(t);
    }
    std::string m = "divergent __syncthreads() in block " + fmt_dim(blockIdx) +
                    ": the threads of a block wait at different barriers (";
    for (size_t i = 0; i < groups.size(); ++i) {
      if (i) m += "; ";
      m += thread_range(groups[i].second) + " at " + groups[i].first;
    }
    m += "); on a GPU this hangs or corrupts shared memory: every thread of the block must reach "
         "the same __syncthreads() call";
    set_error(TP_RT_DEADLOCK, m, f0, l0);
    fail_in_fiber();
  }
  int count = 0, waiting = 0;
  for (int t = 0; t < S.nthreads; ++t)
    if (S.state[t] == T_BARRIER) {
      ++waiting;
      count += S.bar_pred[t];
    }
  for (int t = 0; t < S.nthreads; ++t) {
    if (S.state[t] != T_BARRIER) continue;
    switch (S.bar_kind[t]) { /* __syncthreads_count / _and / _or */
    case TP_BAR_COUNT: S.bar_result[t] = count; break;
    case TP_BAR_AND: S.bar_result[t] = count == waiting; break;
    case TP_BAR_OR: S.bar_result[t] = count > 0; break;
    default: S.bar_result[t] = 0;
    }
    if (t == S.cur_tid) S.state[t] = T_RUNNING;
    else make_ready(t);
  }
  S.bar_arrived = 0;
}

/* ------------------------------------------------------------------ warp collectives */

inline int clamp_width(int w) { return (w >= 1 && w <= 32 && (w & (w - 1)) == 0) ? w : 32; }

/* Compute every member's result; `group` holds the lanes taking part. */
void compute_collective(int w, unsigned group) {
  tp_warp_req **rq = &S.wreq[w * 32];
  unsigned ballot = 0, all_same = 1;
  bool have_first = false;
  unsigned long long first = 0;
  for (int l = 0; l < 32; ++l) {
    if (!(group >> l & 1)) continue;
    if (rq[l]->value) ballot |= 1u << l;
    if (!have_first) {
      first = rq[l]->value;
      have_first = true;
    } else if (rq[l]->value != first) {
      all_same = 0;
    }
  }
  for (int l = 0; l < 32; ++l) {
    if (!(group >> l & 1)) continue;
    tp_warp_req *r = rq[l];
    int width = clamp_width(r->width);
    int base = l & ~(width - 1), last = base + width - 1;
    int src = -1;
    switch (r->op) {
    case TP_W_SHFL_IDX: src = base | (r->arg & (width - 1)); break;
    case TP_W_SHFL_UP: src = l - r->arg; if (src < base) src = l; break;
    case TP_W_SHFL_DOWN: src = l + r->arg; if (src > last) src = l; break;
    case TP_W_SHFL_XOR: src = l ^ r->arg; if (src > last || src < 0) src = l; break;
    default: break;
    }
    if (src >= 0) {
      r->result = (src < 32 && (group >> src & 1)) ? rq[src]->value : r->value;
      continue;
    }
    unsigned long long acc = 0;
    switch (r->op) {
    case TP_W_SYNC: break;
    case TP_W_BALLOT: acc = ballot; break;
    case TP_W_ANY: acc = ballot != 0; break;
    case TP_W_ALL: acc = ballot == group; break;
    case TP_W_MATCH_ANY:
      for (int k = 0; k < 32; ++k)
        if ((group >> k & 1) && rq[k]->value == r->value) acc |= 1u << k;
      break;
    case TP_W_MATCH_ALL:
      acc = all_same ? group : 0;
      r->pred_out = (int)all_same;
      break;
    default: { /* reductions over 32-bit values */
      bool first_lane = true;
      for (int k = 0; k < 32; ++k) {
        if (!(group >> k & 1)) continue;
        uint32_t v = (uint32_t)rq[k]->value, a = (uint32_t)acc;
        if (first_lane) {
          acc = v;
          first_lane = false;
          continue;
        }
        switch (r->op) {
        case TP_W_REDUCE_ADD: a += v; break;
        case TP_W_REDUCE_MIN_U: a = std::min(a, v); break;
        case TP_W_REDUCE_MAX_U: a = std::max(a, v); break;
        case TP_W_REDUCE_MIN_I: a = (uint32_t)std::min((int32_t)a, (int32_t)v); break;
        case TP_W_REDUCE_MAX_I: a = (uint32_t)std::max((int32_t)a, (int32_t)v); break;
        case TP_W_REDUCE_AND: a &= v; break;
        case TP_W_REDUCE_OR: a |= v; break;
        case TP_W_REDUCE_XOR: a ^= v; break;
        default: break;
        }
        acc = a;
      }
    }
    }
    r->result = acc;
  }
}

/* If the collective lane `lane` of warp w waits at can complete, complete it: compute results,
 * release the members (the running thread just continues). */
bool try_complete(int w, int lane) {
  tp_warp_req *r = S.wreq[w * 32 + lane];
  unsigned need = (r->mask & S.warp_live[w]) | (1u << lane);
  if ((need & S.warp_waiting[w]) != need) return false;
  compute_collective(w, need);
  S.warp_waiting[w] &= ~need;
  for (int l = 0; l < 32; ++l) {
    if (!(need >> l & 1)) continue;
    int t = w * 32 + l;
    if (t == S.cur_tid) S.state[t] = T_RUNNING;
    else make_ready(t);
  }
  return true;
}

/* A lane left the warp: collectives that were waiting for it may now complete. */
void recheck_warp(int w) {
  bool progress = true;
  while (progress && S.warp_waiting[w]) {
    progress = false;
    for (int l = 0; l < 32; ++l)
      if ((S.warp_waiting[w] >> l & 1) && try_complete(w, l)) {
        progress = true;
        break;
      }
  }
}

/* ------------------------------------------------------------------ thread lifecycle */

void thread_exited(int t) {
  S.state[t] = T_EXITED;
  S.fiber_of[t] = nullptr;
  --S.live;
  int w = t >> 5;
  S.warp_live[w] &= ~(1u << (t & 31));
  if (S.warp_waiting[w]) recheck_warp(w);
  if (S.bar_arrived > 0 && S.bar_arrived == S.live) release_barrier();
}

void fiber_main(void *arg) {
  Fiber *f = static_cast<Fiber *>(arg);
  for (;;) {
    /* the scheduler (or the previous iteration) made f->tid the running thread */
    S.body(S.body_ctx);
    thread_exited(f->tid);
    if (S.err != TP_RT_OK) fail_in_fiber();
    if (S.next_unstarted < S.nthreads) { /* fast path: next thread on this very stack */
      begin_thread(f, S.next_unstarted++);
      continue;
    }
    f->tid = -1;
    S.free_list.push_back(f);
    block_current(); /* resumed by the scheduler with a new thread */
  }
}

/* ------------------------------------------------------------------ deadlock report */

void report_deadlock() {
  std::vector<int> at_bar;
  std::vector<std::pair<std::string, std::vector<int>>> at_warp;
  const char *file = nullptr;
  unsigned line = 0;
  for (int t = 0; t < S.nthreads; ++t) {
    if (S.state[t] == T_BARRIER) {
      at_bar.push_back(t);
      if (!file) {
        file = S.bar_file[t];
        line = S.bar_line[t];
      }
    } else if (S.state[t] == T_WARP) {
      tp_warp_req *r = S.wreq[t];
      std::string key = std::string(r->what ? r->what : "warp collective") + " at " + site(r->file, r->line);
      auto it = std::find_if(at_warp.begin(), at_warp.end(), [&](auto &g) { return g.first == key; });
      if (it == at_warp.end()) at_warp.push_back({key, {t}});
      else it->second.push_back(t);
      if (!file) {
        file = r->file;
        line = r->line;
      }
    }
  }
  std::string m = "deadlock in block " + fmt_dim(blockIdx) + ": ";
  bool sep = false;
  if (!at_bar.empty()) {
    m += thread_range(at_bar) + " wait in __syncthreads() at " + site(S.bar_file[at_bar[0]], S.bar_line[at_bar[0]]);
    sep = true;
  }
  for (auto &g : at_warp) {
    m += sep ? "; " : "";
    m += thread_range(g.second) + " wait in " + g.first;
    sep = true;
  }
  m += "; none of them can proceed (a warp collective waits for lanes of its mask that are stuck "
       "elsewhere, or a barrier waits for threads that are inside a warp collective)";
  set_error(TP_RT_DEADLOCK, m, file, line);
}

/* ------------------------------------------------------------------ running a block */

int run_block() {
  S.ready.clear();
  S.ready_head = 0;
  S.next_unstarted = 0;
  S.live = S.nthreads;
  S.bar_arrived = 0;
  std::fill(S.state.begin(), S.state.end(), T_UNSTARTED);
  std::fill(S.warp_waiting.begin(), S.warp_waiting.end(), 0u);
  for (int w = 0; w < S.nwarps; ++w) {
    int n = std::min(32, S.nthreads - w * 32);
    S.warp_live[w] = n == 32 ? 0xffffffffu : ((1u << n) - 1u);
  }
  for (;;) {
    if (S.err != TP_RT_OK) return S.err;
    Fiber *f;
    int t;
    if (S.ready_head < S.ready.size()) {
      t = S.ready[S.ready_head++];
      if (S.ready_head == S.ready.size()) {
        S.ready.clear();
        S.ready_head = 0;
      }
      f = S.fiber_of[t];
    } else if (S.next_unstarted < S.nthreads) {
      f = acquire_fiber();
      t = S.next_unstarted++;
    } else if (S.live == 0) {
      return TP_RT_OK;
    } else {
      report_deadlock();
      return S.err;
    }
    begin_thread(f, t);
    ctx_switch(&S.sched_ctx, &f->ctx);
  }
}

/* ------------------------------------------------------------------ crash reports */

void put(const char *s) {
  ssize_t r = write(2, s, std::strlen(s));
  (void)r;
}
void put_u(unsigned long long v) {
  char b[24];
  int i = 23;
  b[i] = 0;
  do {
    b[--i] = (char)('0' + v % 10);
    v /= 10;
  } while (v && i > 0);
  put(b + i);
}
void put_hex(unsigned long long v) {
  char b[20];
  int i = 19;
  b[i] = 0;
  do {
    b[--i] = "0123456789abcdef"[v & 15];
    v >>= 4;
  } while (v && i > 2);
  b[--i] = 'x';
  b[--i] = '0';
  put(b + i);
}
void put_dim(uint3 v) {
  put("(");
  put_u(v.x);
  put(",");
  put_u(v.y);
  put(",");
  put_u(v.z);
  put(")");
}

/* Async-signal-safe: say which CUDA thread crashed and what it touched, then let the signal's
 * default action kill the process (the Python parent turns that into TP411). */
/* "tileport-emu-pc: <offset> <library>" lets the parent map the faulting instruction to a source
 * line with addr2line (kernel libraries carry line tables). dladdr is not formally async-signal-safe
 * but the process is about to die anyway. */
void put_pc(void *uctx) {
  ucontext_t *uc = static_cast<ucontext_t *>(uctx);
  uintptr_t pc = 0;
#if defined(__x86_64__)
  pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
  pc = (uintptr_t)uc->uc_mcontext.pc;
#endif
  Dl_info info;
  if (!pc || !dladdr((void *)pc, &info) || !info.dli_fname) return;
  put("tileport-emu-pc: ");
  put_hex((unsigned long long)(pc - (uintptr_t)info.dli_fbase));
  put(" ");
  put(info.dli_fname);
  put("\n");
}

void crash_handler(int sig, siginfo_t *si, void *uctx) {
  const char *name = sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE"
                   : sig == SIGILL ? "SIGILL" : sig == SIGABRT ? "SIGABRT" : "signal";
  put("tileport-emu: ");
  put(name);
  if (g_in_kernel) {
    put(" in block ");
    put_dim(blockIdx);
    put(" thread ");
    put_dim(threadIdx);
  }
  if (sig == SIGSEGV || sig == SIGBUS) {
    const char *a = (const char *)si->si_addr;
    bool known = false;
    for (Fiber *f : S.all) /* reading the vector is fine: it is not being modified now */
      if (a >= f->mem && a < f->mem + (size_t)sysconf(_SC_PAGESIZE)) {
        put(": stack overflow (each CUDA thread has TP_EMU_STACK_KB=");
        put_u(S.stack_bytes / 1024);
        put(" KiB of stack)");
        known = true;
      }
    for (int i = 0; i < g_nbuffers && !known; ++i) {
      const NotedBuffer &b = g_buffers[i];
      if (a >= b.hi && a < b.hi + 65536) {
        put(": out-of-bounds access at byte ");
        put_u((unsigned long long)(a - b.lo));
        put(" of ");
        put(b.label);
        put(", which has ");
        put_u((unsigned long long)(b.hi - b.lo));
        put(" bytes");
        known = true;
      } else if (a < b.lo && a + 65536 >= b.lo) {
        put(": out-of-bounds access ");
        put_u((unsigned long long)(b.lo - a));
        put(" bytes before the start of ");
        put(b.label);
        known = true;
      }
    }
    if (!known) {
      put(": invalid memory access at address ");
      put_hex((unsigned long long)(uintptr_t)a);
      if (!a) put(" (a null pointer, or an address beyond the 47-bit user space)");
    }
  } else if (sig == SIGFPE) {
    put(": arithmetic exception (integer division by zero?)");
  }
  put("\n");
  if (g_in_kernel) put_pc(uctx);
}

void install_crash_handler() {
  static bool done = false;
  if (done) return;
  done = true;
  static char altstack[64 * 1024];
  stack_t ss{};
  ss.ss_sp = altstack;
  ss.ss_size = sizeof altstack;
  sigaltstack(&ss, nullptr);
  struct sigaction sa{};
  sa.sa_sigaction = crash_handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &sa, nullptr);
}

} // namespace

/* ------------------------------------------------------------------ exported API */

TP_EXPORT int tp_rt_launch(tp_body_fn body, void *ctx, dim3 grid, dim3 block, size_t smem) {
  if (S.active) {
    S.err = TP_RT_OK;
    set_error(TP_RT_UNSUPPORTED, "a kernel launched another kernel (dynamic parallelism is not emulated)");
    return S.err;
  }
  S.err = TP_RT_OK;
  S.msg.clear();
  S.err_file.clear();
  S.err_line = 0;
  unsigned long long nthreads = (unsigned long long)block.x * block.y * block.z;
  if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z || nthreads > 1024 ||
      block.z > 64 || grid.y > 65535 || grid.z > 65535) {
    set_error(TP_RT_BAD_CONFIG, "invalid launch configuration: grid " + fmt_dim(grid) + ", block " +
                                    fmt_dim(block) + " (at most 1024 threads per block, block.z <= 64, "
                                    "grid.y and grid.z <= 65535, no zero dimension)");
    return S.err;
  }
  if (smem > TP_MAX_DYN_SMEM) {
    set_error(TP_RT_BAD_CONFIG, "dynamic shared memory of " + std::to_string(smem) +
                                    " bytes exceeds the emulator's " + std::to_string(TP_MAX_DYN_SMEM) +
                                    " bytes (and any GPU's limit)");
    return S.err;
  }
  install_crash_handler();
  std::setvbuf(stdout, nullptr, _IOLBF, 0); /* device printf survives a later crash */

  S.body = body;
  S.body_ctx = ctx;
  S.nthreads = (int)nthreads;
  S.nwarps = (S.nthreads + 31) / 32;
  S.tidx.resize(S.nthreads);
  for (unsigned z = 0, t = 0; z < block.z; ++z)
    for (unsigned y = 0; y < block.y; ++y)
      for (unsigned x = 0; x < block.x; ++x) S.tidx[t++] = uint3{x, y, z};
  S.state.assign(S.nthreads, T_UNSTARTED);
  S.fiber_of.assign(S.nthreads, nullptr);
  S.bar_file.assign(S.nthreads, nullptr);
  S.bar_line.assign(S.nthreads, 0);
  S.bar_kind.assign(S.nthreads, 0);
  S.bar_pred.assign(S.nthreads, 0);
  S.bar_result.assign(S.nthreads, 0);
  S.wreq.assign((size_t)S.nwarps * 32, nullptr);
  S.warp_live.assign(S.nwarps, 0);
  S.warp_waiting.assign(S.nwarps, 0);
  S.ready.reserve(S.nthreads);
  /* fresh dynamic shared memory holds garbage on a GPU: 0xFF bytes make floats read back NaN */
  std::memset(tp_dyn_smem, 0xFF, smem);

  gridDim = grid;
  blockDim = block;
  S.active = true;
  g_in_kernel = 1;
  int rc = TP_RT_OK;
  for (unsigned bz = 0; bz < grid.z && rc == TP_RT_OK; ++bz)
    for (unsigned by = 0; by < grid.y && rc == TP_RT_OK; ++by)
      for (unsigned bx = 0; bx < grid.x && rc == TP_RT_OK; ++bx) {
        blockIdx = uint3{bx, by, bz};
        rc = run_block();
      }
  g_in_kernel = 0;
  S.active = false;
  if (rc != TP_RT_OK) reset_fibers();
  S.current = nullptr;
  S.cur_tid = -1;
  return rc;
}

TP_EXPORT const char *tp_rt_error_message(void) { return S.msg.c_str(); }
TP_EXPORT const char *tp_rt_error_file(void) { return S.err_file.c_str(); }
TP_EXPORT unsigned tp_rt_error_line(void) { return S.err_line; }

TP_EXPORT int tp_rt_barrier(int kind, int pred, const char *file, unsigned line) {
  int t = S.cur_tid;
  if (t < 0) return 0; /* called outside a kernel */
  S.state[t] = T_BARRIER;
  S.bar_file[t] = file;
  S.bar_line[t] = line;
  S.bar_kind[t] = kind;
  S.bar_pred[t] = pred;
  if (++S.bar_arrived == S.live) release_barrier();
  else block_current();
  return S.bar_result[t];
}

TP_EXPORT void tp_rt_warp_collective(tp_warp_req *req) {
  int t = S.cur_tid;
  if (t < 0) return;
  int w = t >> 5, lane = t & 31;
  S.wreq[t] = req;
  S.state[t] = T_WARP;
  S.warp_waiting[w] |= 1u << lane;
  if (!try_complete(w, lane)) block_current();
}

TP_EXPORT void tp_rt_yield(void) {
  int t = S.cur_tid;
  if (t < 0) return;
  make_ready(t);
  block_current();
}

TP_EXPORT unsigned tp_rt_live_lanes(void) {
  int t = S.cur_tid;
  if (t < 0) return 1u;
  return S.warp_live[t >> 5];
}

TP_EXPORT void tp_rt_fail(int code, const char *msg, const char *file, unsigned line) {
  std::string m = msg ? msg : "unsupported";
  if (S.cur_tid >= 0) m += " (block " + fmt_dim(blockIdx) + ", thread " + fmt_dim(threadIdx) + ")";
  set_error(code, m, file, line);
  if (S.cur_tid < 0) std::abort(); /* not inside a launch: nothing to unwind to */
  fail_in_fiber();
}

TP_EXPORT void tp_rt_note_buffer(const void *begin, size_t nbytes, const char *label) {
  if (g_nbuffers >= (int)(sizeof g_buffers / sizeof g_buffers[0])) return;
  NotedBuffer &b = g_buffers[g_nbuffers];
  b.lo = (const char *)begin;
  b.hi = (const char *)begin + nbytes;
  std::snprintf(b.label, sizeof b.label, "%s", label ? label : "a buffer");
  g_nbuffers = g_nbuffers + 1;
}
