# Mouchard: the two commands a new user needs are `make demo` and `make test`.
SWIFT ?= swift
BIN_DEBUG = .build/debug/mouchard
BIN_RELEASE = .build/release/mouchard

.PHONY: deps build release demo test lint fixtures fixtures-check fuzz bench clean report-screenshot

## deps: install the Debian packages the build and tests need (idempotent, quiet when present)
deps:
	@./scripts/deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

## demo: build, then run Mouchard's main job on the bundled example in captures/
demo: build
	@./scripts/demo.sh $(BIN_DEBUG)

## test: the whole test suite (Swift Testing), then the example package that uses MouchardKit (Examples/)
test: deps
	$(SWIFT) test
	$(SWIFT) test --package-path Examples

## lint: swift format's rules (.swift-format), declared imports, and the sources and tests built with warnings as errors
lint: deps
	SWIFT=$(SWIFT) ./scripts/lint.sh

## fixtures: regenerate the test fixtures (Tests/Fixtures/) from their generator; commit the result
fixtures:
	python3 Tests/Fixtures/make_fixtures.py

## fixtures-check: fail when the committed fixtures differ from what the generator writes (also a test)
fixtures-check:
	python3 Tests/Fixtures/make_fixtures.py --check

## fuzz: the hostile-input (mutation) tests and the prefilter differential test, with many more seeded cases than CI runs
fuzz: deps
	MOUCHARD_FUZZ_ITERATIONS=$${MOUCHARD_FUZZ_ITERATIONS:-20000} $(SWIFT) test --filter 'MutationTests|HostileInputTests|PruningDifferentialTests'

## report-screenshot: HTML report of the dev corpus (iOS device) and a PNG of it, in captures/
report-screenshot: deps
	$(SWIFT) build -c release --product mouchard
	./scripts/report-screenshot.sh $(BIN_RELEASE)

clean:
	rm -rf .build
